/**
 * A run watched live on the Runs page while its calls wait on the Approvals page (another
 * tab): the scripted model calls two tools of server-everything that need approval (policy
 * default `ask`); the first is allowed, the second denied, the run completes, the timeline
 * shows both decisions, and the run is then a past session of the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { startStudioProcess } from '../support/studio.js';
import type { StudioProcess } from '../support/studio.js';
import {
  openTab,
  showPage,
  STUDIO_WAIT,
  textOf,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import {
  APPROVAL_RUN,
  approvalRunTurns,
  ASK_ALL,
  everythingServer,
} from '../support/studio-servers.js';

const chromium = chromiumPath();

/** Waits for the one pending approval of `tool`; checks its exact arguments; returns it. */
async function pendingApproval(page: Page, tool: string, args: object) {
  const item = page.getByTestId('approval-item').filter({
    has: page.getByTestId('approval-tool').filter({ hasText: tool }),
  });
  await item.waitFor({ timeout: STUDIO_WAIT.timeout });
  expect(await page.getByTestId('approval-item').count()).toBe(1);
  expect(JSON.parse(await textOf(item.getByTestId('approval-args')))).toEqual(args);
  await expect.poll(() => textOf(page.getByTestId('approvals-count')), STUDIO_WAIT).toBe('1');
  return item;
}

/** The texts of the run's timeline items of `type`. */
async function timelineTexts(page: Page, type: string): Promise<string[]> {
  const items = page.getByTestId('run-timeline').locator(`[data-testid="timeline-item"]`);
  const texts: string[] = [];
  for (const item of await items.all()) {
    if ((await item.getAttribute('data-type')) === type) texts.push(await textOf(item));
  }
  return texts;
}

describe.skipIf(!chromium)('studio: Runs and Approvals', () => {
  const chrome = useChromium(chromium);
  let studio: StudioProcess;
  beforeAll(async () => {
    studio = await startStudioProcess({
      servers: { everything: everythingServer() },
      turns: approvalRunTurns(),
      args: ASK_ALL,
    });
  });
  afterAll(async () => {
    await studio?.close();
  });

  it('watches a run live; one call allowed and one denied from the Approvals page', async () => {
    await withStudio(chrome.browser, studio, 'runs', async ({ context, page }) => {
      await waitForServerStatus(page, 'everything', 'connected');
      const approvals = await openTab(context, studio, 'approvals');

      await showPage(page, 'runs');
      await page.getByTestId('run-prompt').fill(APPROVAL_RUN.prompt);
      await page.getByTestId('run-start').click();

      // the first call waits: the run is live, its timeline already has events
      const first = await pendingApproval(
        approvals,
        APPROVAL_RUN.first.tool,
        APPROVAL_RUN.first.args,
      );
      expect(await textOf(page.getByTestId('run-status'))).toBe('running');
      expect(await page.getByTestId('timeline-item').count()).toBeGreaterThan(0);
      await saveScreenshot(approvals, 'approvals');
      await first.getByTestId('approval-allow').click();

      const second = await pendingApproval(
        approvals,
        APPROVAL_RUN.second.tool,
        APPROVAL_RUN.second.args,
      );
      await second.getByTestId('approval-message').fill('Not this one.');
      await second.getByTestId('approval-deny').click();
      await expect.poll(() => approvals.getByTestId('approval-item').count(), STUDIO_WAIT).toBe(0);

      await expect
        .poll(() => textOf(page.getByTestId('run-status')), STUDIO_WAIT)
        .toBe('completed');
      await expect
        .poll(() => textOf(page.getByTestId('run-text')), STUDIO_WAIT)
        .toContain(APPROVAL_RUN.finalText);

      // the decisions: the echo call allowed (and run), the get-sum call denied
      const decisions = await timelineTexts(page, 'tool.decision');
      const called = await timelineTexts(page, 'tool.called');
      const shown = [...decisions, ...called];
      expect(shown.some((t) => t.includes(APPROVAL_RUN.first.tool) && /allow/i.test(t))).toBe(true);
      expect(shown.some((t) => t.includes(APPROVAL_RUN.second.tool) && /den(y|ied)/i.test(t))).toBe(
        true,
      );
      expect(
        (await timelineTexts(page, 'tool.completed')).some((t) =>
          t.includes(APPROVAL_RUN.first.tool),
        ),
      ).toBe(true);
      await saveScreenshot(page, 'runs');

      // and the run is a past session of the store, its messages shown when picked
      const session = page
        .getByTestId('session-item')
        .filter({ hasText: APPROVAL_RUN.prompt })
        .first();
      await session.waitFor({ timeout: STUDIO_WAIT.timeout });
      await session.click();
      const messages = page.getByTestId('session-messages');
      await expect.poll(() => textOf(messages), STUDIO_WAIT).toContain(APPROVAL_RUN.prompt);
      expect(await textOf(messages)).toContain(APPROVAL_RUN.finalText);
    });
  });
});
