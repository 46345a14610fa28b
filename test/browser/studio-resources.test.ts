/**
 * A resource subscription on the Resources page: a static document of server-everything is
 * read and subscribed to; server-everything then sends `notifications/resources/updated`
 * for it (once when its `toggle-subscriber-updates` tool is called, from a second tab, then
 * every 5 s), and the page's count of updates goes up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { startStudioProcess } from '../support/studio.js';
import type { StudioProcess } from '../support/studio.js';
import {
  openTab,
  selectTool,
  showPage,
  STUDIO_WAIT,
  textOf,
  waitForResult,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import { ALLOW_ALL, everythingServer } from '../support/studio-servers.js';

const chromium = chromiumPath();

/** server-everything's static documents (its `docs` folder). */
const STATIC_DOCUMENT = 'demo://resource/static/document/';

describe.skipIf(!chromium)('studio: Resources', () => {
  const chrome = useChromium(chromium);
  let studio: StudioProcess;
  beforeAll(async () => {
    studio = await startStudioProcess({
      servers: { everything: everythingServer() },
      args: ALLOW_ALL,
    });
  });
  afterAll(async () => {
    await studio?.close();
  });

  it('reads a resource, subscribes to it and counts the updates the server sends', async () => {
    await withStudio(chrome.browser, studio, 'resources', async ({ context, page }) => {
      await waitForServerStatus(page, 'everything', 'connected');
      await showPage(page, 'resources');
      await page.getByTestId('resources-server').selectOption('everything');
      const item = page.locator(`[data-testid="resource-item"][data-uri^="${STATIC_DOCUMENT}"]`);
      await item.first().click();
      await page.getByTestId('resource-read').click();
      await expect
        .poll(() => textOf(page.getByTestId('resource-content')), STUDIO_WAIT)
        .not.toBe('');
      expect(await page.getByTestId('template-item').count()).toBeGreaterThan(0);

      await page.getByTestId('resource-subscribe').click();
      await expect
        .poll(() => textOf(page.getByTestId('resource-update-count')), STUDIO_WAIT)
        .toBe('0');

      // the server starts sending updates for its subscriptions when this tool is called
      const tools = await openTab(context, studio, 'tools');
      await selectTool(tools, 'everything', 'toggle-subscriber-updates');
      await tools.getByTestId('tool-call').click();
      await waitForResult(tools, /Started/);

      // one update at once, the next 5 s later
      await expect
        .poll(async () => Number(await textOf(page.getByTestId('resource-update-count'))), {
          ...STUDIO_WAIT,
          timeout: 30_000,
        })
        .toBeGreaterThanOrEqual(2);
      await saveScreenshot(page, 'resources');
      await page.getByTestId('resource-unsubscribe').click();
      await page.getByTestId('resource-subscribe').waitFor();
    });
  });
});
