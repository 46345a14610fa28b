/**
 * A run watched live on the Runs page while its calls wait on the Approvals page (another
 * tab): the scripted model calls two tools of server-everything that need approval (policy
 * default `ask`); the first is allowed, the second denied, the run completes, the timeline
 * shows both decisions, and the run is then a past session of the store.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import {
  openTab,
  selectTool,
  startRun,
  STUDIO_WAIT,
  textOf,
  timelineTexts,
  waitForResult,
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

describe.skipIf(!chromium)('studio: Runs and Approvals', () => {
  const chrome = useChromium(chromium);
  const studio = useStudioProcess(() => ({
    servers: { everything: everythingServer() },
    turns: approvalRunTurns(),
    args: ASK_ALL,
  }));

  it('watches a run live; one call allowed and one denied from the Approvals page', async () => {
    await withStudio(chrome.browser, studio, 'runs', async ({ context, page }) => {
      await waitForServerStatus(page, 'everything', 'connected');
      const approvals = await openTab(context, studio, 'approvals');

      await startRun(page, APPROVAL_RUN.prompt);

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
      // item-05: each call's line previews its result
      const results = await page.getByTestId('timeline-result').allTextContents();
      expect(results.some((t) => t.includes(APPROVAL_RUN.first.args.message))).toBe(true);
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

      // item-05: a call from the Tools page that waits says so, and links to its approval
      await selectTool(page, 'everything', APPROVAL_RUN.first.tool);
      await page.getByTestId('field-message').fill('from-the-tools-page');
      await page.getByTestId('tool-call').click();
      const waiting = page.getByTestId('tool-waiting');
      await waiting.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await textOf(waiting)).toMatch(/waits for approval/);
      const [linked] = await Promise.all([
        context.waitForEvent('page'),
        waiting.getByTestId('tool-approval-link').click(),
      ]);
      const card = linked.locator('[data-testid="approval-item"].linked');
      await card.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(JSON.parse(await textOf(card.getByTestId('approval-args')))).toEqual({
        message: 'from-the-tools-page',
      });
      await card.getByTestId('approval-allow').click();
      await waitForResult(page, 'from-the-tools-page');
      expect(await page.getByTestId('tool-waiting').count()).toBe(0);
      await linked.close();
    });
  });
});

/**
 * The page's event stream drops while the run ends (16 other streams push it out, and its
 * reconnection is held back): the `run.ended` it missed is made up on the next `hello`, which
 * no longer lists the run, so the page reads the stored session and shows the run completed.
 */
describe.skipIf(!chromium)('studio: a run that ends while the page reconnects', () => {
  const chrome = useChromium(chromium);
  const studio = useStudioProcess(() => ({
    servers: { everything: everythingServer() },
    turns: approvalRunTurns(),
    args: ASK_ALL,
  }));

  it('shows it completed from the stored session once the stream is back', async () => {
    await withStudio(chrome.browser, studio, 'runs-reconnect', async ({ context, page }) => {
      await waitForServerStatus(page, 'everything', 'connected');
      await startRun(page, APPROVAL_RUN.prompt);
      await expect.poll(() => textOf(page.getByTestId('approvals-count')), STUDIO_WAIT).toBe('1');

      const cookie = (await context.cookies(studio.origin))
        .map((c) => `${c.name}=${c.value}`)
        .join('; ');
      const api = async (path: string, body?: object): Promise<unknown> => {
        const response = await fetch(`${studio.origin}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: {
            cookie,
            ...(body === undefined
              ? {}
              : { origin: studio.origin, 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return response.json();
      };

      // the page's reconnection waits until the gate opens
      let open: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (open = resolve));
      await context.route('**/api/events', async (route) => {
        await gate;
        await route.continue();
      });
      // 16 streams of the test's own push the page's one out (the studio keeps 16 at most)
      const streams: AbortController[] = [];
      for (let i = 0; i < 16; i++) {
        const controller = new AbortController();
        streams.push(controller);
        await fetch(`${studio.origin}/api/events`, {
          headers: { cookie, accept: 'text/event-stream' },
          signal: controller.signal,
        });
      }
      try {
        // meanwhile the run goes on and ends: one call allowed, one denied, over the API
        const waiting = async (tool: string) => {
          let id: string | undefined;
          await expect
            .poll(async () => {
              const list = (await api('/api/approvals')) as {
                id: string;
                request: { toolName?: string };
              }[];
              id = list.find((a) => a.request.toolName?.endsWith(tool))?.id;
              return id;
            }, STUDIO_WAIT)
            .toBeDefined();
          return id!;
        };
        await api(`/api/approvals/${await waiting(APPROVAL_RUN.first.tool)}`, {
          decision: 'allow',
        });
        await api(`/api/approvals/${await waiting(APPROVAL_RUN.second.tool)}`, {
          decision: 'deny',
        });
        const { sessions } = (await api('/api/sessions')) as {
          sessions: { id: string; status: string }[];
        };
        const sessionId = sessions[0]!.id;
        await expect
          .poll(
            async () => ((await api(`/api/sessions/${sessionId}`)) as { status: string }).status,
            STUDIO_WAIT,
          )
          .toBe('completed');
        // the page missed run.ended
        expect(await textOf(page.getByTestId('run-status'))).toBe('running');

        open();
        await expect
          .poll(() => textOf(page.getByTestId('run-status')), STUDIO_WAIT)
          .toBe('completed');
        expect(await textOf(page.getByTestId('run-text'))).toContain(APPROVAL_RUN.finalText);
      } finally {
        open();
        for (const s of streams) s.abort();
      }
    });
  });
});
