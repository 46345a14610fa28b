/**
 * An MCP Apps view (SEP-1865) in the studio: the apps fixture server's tool declares a
 * `ui://` view; calling the tool from the Tools page renders the view in the sandboxed
 * `app-frame`, and the view's button calls another tool of the server, which goes through
 * the studio's policy (here it asks: the call is allowed from the Approvals page) before
 * its answer shows in the view.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import {
  openTab,
  selectTool,
  STUDIO_WAIT,
  textOf,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import { APPS, appsServer, CONNECT_ALL } from '../support/studio-servers.js';

const chromium = chromiumPath();

/** The view inside the studio's `app-frame`. */
function appView(page: Page) {
  return page.frameLocator('[data-testid="app-frame"]');
}

describe.skipIf(!chromium)('studio: MCP Apps', () => {
  const chrome = useChromium(chromium);
  const studio = useStudioProcess(() => ({
    servers: { [APPS.server]: appsServer() },
    // the view's tool runs; the tool the view calls waits for a person
    args: [...CONNECT_ALL, '--default', 'ask', '--allow', `mcp__${APPS.server}__${APPS.viewTool}`],
  }));

  it('renders the view of a tool, whose button calls a tool through the policy', async () => {
    await withStudio(chrome.browser, studio, 'apps', async ({ context, page }) => {
      await waitForServerStatus(page, APPS.server, 'connected');
      await selectTool(page, APPS.server, APPS.viewTool);
      for (const [field, value] of Object.entries(APPS.viewArgs)) {
        await page.getByTestId(`field-${field}`).fill(value);
      }
      await page.getByTestId('tool-call').click();

      const frame = page.getByTestId('app-frame');
      await frame.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await frame.getAttribute('sandbox')).not.toBeNull();
      expect(await frame.getAttribute('src')).toMatch(/\/apps\/view\//);
      const view = appView(page);
      await expect.poll(() => textOf(view.locator(APPS.status)), STUDIO_WAIT).toBe('connected');
      await expect.poll(() => textOf(view.locator(APPS.result)), STUDIO_WAIT).toBe(APPS.resultText);
      await view.locator(APPS.button).click();

      // the view's call is a call like any other: the policy asks, a person allows it
      const approvals = await openTab(context, studio, 'approvals');
      const item = approvals.getByTestId('approval-item').filter({
        has: approvals.getByTestId('approval-tool').filter({ hasText: APPS.calledTool }),
      });
      await item.waitFor({ timeout: STUDIO_WAIT.timeout });
      // the card says a view asked, not a person on the Tools page
      expect(await textOf(item.getByTestId('approval-via-view'))).toBe(
        `asked by an MCP Apps view of ${APPS.server}`,
      );
      await item.getByTestId('approval-allow').click();

      await expect
        .poll(() => textOf(view.locator(APPS.answer)), STUDIO_WAIT)
        .toMatch(APPS.answerText);
      await saveScreenshot(page, 'apps');
    });
  });
});
