/**
 * A run seen while it happens: the model's text is on the Runs page before the run ends
 * (while its tool call still waits for approval); the call is redirected from the Approvals
 * page with a message, the run continues with that message as a new instruction and the
 * timeline shows the redirect; a second run calls server-everything's long-running
 * operation, whose progress notifications the timeline shows as a progress bar.
 */
import { describe, expect, it } from 'vitest';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import {
  openTab,
  startRun,
  STUDIO_WAIT,
  textOf,
  timelineTexts,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import {
  ASK_ALL_BUT_LONG_RUNNING,
  everythingServer,
  LIVE_RUN,
  liveRunTurns,
} from '../support/studio-servers.js';

const chromium = chromiumPath();

describe.skipIf(!chromium)('studio: a run seen live', () => {
  const chrome = useChromium(chromium);
  const studio = useStudioProcess(() => ({
    servers: { everything: everythingServer() },
    turns: liveRunTurns(),
    args: ASK_ALL_BUT_LONG_RUNNING,
  }));

  it('streams text before the run ends, redirects a call, then shows progress', async () => {
    await withStudio(chrome.browser, studio, 'run-live', async ({ context, page }) => {
      await waitForServerStatus(page, 'everything', 'connected');
      const approvals = await openTab(context, studio, 'approvals');
      await startRun(page, LIVE_RUN.prompt);

      // the call waits for a person; the text the model said before it is already shown
      const item = approvals.getByTestId('approval-item');
      await item.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await item.getAttribute('data-tool')).toContain(LIVE_RUN.echo.tool);
      await expect
        .poll(() => textOf(page.getByTestId('run-text')), STUDIO_WAIT)
        .toContain(LIVE_RUN.firstText);
      expect(await textOf(page.getByTestId('run-status'))).toBe('running');
      expect(await approvals.getByTestId('approval-item').count()).toBe(1);

      // redirected: the call does not run, the model gets the message instead
      await item.getByTestId('approval-message').fill(LIVE_RUN.redirect);
      await item.getByTestId('approval-redirect').click();
      await expect.poll(() => approvals.getByTestId('approval-item').count(), STUDIO_WAIT).toBe(0);
      await expect
        .poll(() => textOf(page.getByTestId('run-status')), STUDIO_WAIT)
        .toBe('completed');
      await expect
        .poll(() => textOf(page.getByTestId('run-text')), STUDIO_WAIT)
        .toContain(LIVE_RUN.afterRedirect);
      const decisions = await timelineTexts(page, 'tool.decision');
      expect(decisions.some((t) => t.includes(LIVE_RUN.echo.tool) && /redirect/i.test(t))).toBe(
        true,
      );
      // never sent to the server (a redirected call still completes, with the redirect's result)
      expect(
        (await timelineTexts(page, 'tool.called')).some((t) => t.includes(LIVE_RUN.echo.tool)),
      ).toBe(false);
      await saveScreenshot(page, 'run-redirected');

      // the message reached the model as a new instruction: it is in the session
      const session = page.getByTestId('session-item').filter({ hasText: LIVE_RUN.prompt }).first();
      await session.waitFor({ timeout: STUDIO_WAIT.timeout });
      await session.click();
      await expect
        .poll(() => textOf(page.getByTestId('session-messages')), STUDIO_WAIT)
        .toContain(LIVE_RUN.redirect);

      // a run whose call reports progress: the bar shows how far it is, out of how many
      await startRun(page, LIVE_RUN.progressPrompt);
      const bar = page.getByTestId('run-progress').first();
      await bar.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await bar.getAttribute('data-total')).toBe(String(LIVE_RUN.longRunning.args.steps));
      const seen = new Set<string>();
      await expect
        .poll(async () => {
          seen.add((await bar.getAttribute('data-progress')) ?? '');
          return bar.getAttribute('data-progress');
        }, STUDIO_WAIT)
        .toBe(String(LIVE_RUN.longRunning.args.steps));
      for (const value of seen) expect(['1', '2', '3']).toContain(value);
      await expect
        .poll(() => textOf(page.getByTestId('run-status')), STUDIO_WAIT)
        .toBe('completed');
      expect(await textOf(page.getByTestId('run-text'))).toContain(LIVE_RUN.afterProgress);
      expect(await textOf(page.getByTestId('run-text'))).not.toContain(LIVE_RUN.afterRedirect);
      await saveScreenshot(page, 'run-progress');
    });
  });
});
