/**
 * A resource subscription on the Resources page: a static document of server-everything is
 * read and subscribed to; server-everything then sends `notifications/resources/updated`
 * for it (once when its `toggle-subscriber-updates` tool is called, from a second tab, then
 * every 5 s), and the page's count of updates goes up. Then the subscription as the server
 * holds it: still shown after a reload, and each update shows the resource's new content
 * (the live-resource fixture, whose `bump` tool changes it).
 */
import { describe, expect, it } from 'vitest';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import {
  byTestIdAnd,
  openTab,
  selectTool,
  showPage,
  STUDIO_WAIT,
  textOf,
  waitForResult,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import {
  ALLOW_ALL,
  everythingServer,
  LIVE_RESOURCE,
  liveResourceServer,
} from '../support/studio-servers.js';

const chromium = chromiumPath();

/** server-everything's static documents (its `docs` folder). */
const STATIC_DOCUMENT = 'demo://resource/static/document/';

describe.skipIf(!chromium)('studio: Resources', () => {
  const chrome = useChromium(chromium);
  const studio = useStudioProcess(() => ({
    servers: { everything: everythingServer(), [LIVE_RESOURCE.server]: liveResourceServer() },
    args: ALLOW_ALL,
  }));

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

  it('shows the subscription the server holds after a reload, and the new content of each update', async () => {
    await withStudio(chrome.browser, studio, 'resources-live', async ({ context, page }) => {
      const { server, uri } = LIVE_RESOURCE;
      const openResource = async () => {
        await showPage(page, 'resources');
        await page.getByTestId('resources-server').selectOption(server);
        await byTestIdAnd(page, 'resource-item', 'data-uri', uri).click();
      };
      /** Reloads the page, shows the resource again, and waits for its subscription state. */
      const reloadAndExpectSubscribed = async (subscribed: boolean) => {
        await page.reload();
        await page.getByTestId('nav-servers').waitFor();
        await openResource();
        await expect
          .poll(
            () => page.getByTestId('resource-subscription').getAttribute('data-subscribed'),
            STUDIO_WAIT,
          )
          .toBe(String(subscribed));
      };
      const content = page.getByTestId('resource-content');
      await waitForServerStatus(page, server, 'connected');
      await openResource();
      await page.getByTestId('resource-read').click();
      await expect.poll(() => textOf(content), STUDIO_WAIT).toContain('revision 1');
      await page.getByTestId('resource-subscribe').click();
      await expect
        .poll(() => page.getByTestId('resource-unsubscribe').isEnabled(), STUDIO_WAIT)
        .toBe(true);

      // a reload forgets everything the page knew: the state comes from the server
      await reloadAndExpectSubscribed(true);
      expect(await page.getByTestId('resource-subscribe').isDisabled()).toBe(true);
      expect(await page.getByTestId('resource-unsubscribe').isEnabled()).toBe(true);
      expect(await content.count()).toBe(0);

      // the resource changes (a second tab calls the tool): the page shows the new content
      const tools = await openTab(context, studio, 'tools');
      await selectTool(tools, server, 'bump');
      for (const [revision, updates] of [
        [2, 1],
        [3, 2],
      ] as const) {
        await tools.getByTestId('tool-call').click();
        await waitForResult(tools, `revision ${revision}`);
        await expect.poll(() => textOf(content), STUDIO_WAIT).toContain(`revision ${revision}`);
        await expect
          .poll(() => textOf(page.getByTestId('resource-update-count')), STUDIO_WAIT)
          .toBe(String(updates));
      }
      await saveScreenshot(page, 'resources-live');

      await page.getByTestId('resource-unsubscribe').click();
      await expect
        .poll(() => page.getByTestId('resource-subscribe').isEnabled(), STUDIO_WAIT)
        .toBe(true);
      await reloadAndExpectSubscribed(false);
    });
  });

  it('shows a subscription the server side ended as ended, without a reload', async () => {
    await withStudio(chrome.browser, studio, 'resources-ended', async ({ context, page }) => {
      const { server, uri } = LIVE_RESOURCE;
      const state = page.getByTestId('resource-subscription');
      await waitForServerStatus(page, server, 'connected');
      await showPage(page, 'resources');
      await page.getByTestId('resources-server').selectOption(server);
      await byTestIdAnd(page, 'resource-item', 'data-uri', uri).click();
      await expect.poll(() => state.getAttribute('data-subscribed'), STUDIO_WAIT).toBe('false');
      await page.getByTestId('resource-subscribe').click();
      await expect.poll(() => state.getAttribute('data-subscribed'), STUDIO_WAIT).toBe('true');

      // the server's process exits: the stream ends on the studio's side
      const tools = await openTab(context, studio, 'tools');
      await selectTool(tools, server, 'crash');
      await tools.getByTestId('tool-call').click();
      await expect.poll(() => state.getAttribute('data-subscribed'), STUDIO_WAIT).toBe('false');
      expect(await page.getByTestId('resource-subscribe').isEnabled()).toBe(true);
    });
  });
});
