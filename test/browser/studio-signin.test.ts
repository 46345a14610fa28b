/**
 * An OAuth sign-in completed in the browser: the studio declares the OAuth world's protected
 * MCP server (test/fixtures/oauth: a real authorization server and MCP server on loopback);
 * the Sign-in page starts the login, the browser follows the authorization link through the
 * authorization server's login and consent pages back to the studio's `/oauth/callback`,
 * and the server connects as the signed-in account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import {
  byTestIdAnd,
  selectTool,
  showPage,
  STUDIO_WAIT,
  textOf,
  waitForResult,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import { ALLOW_ALL, oauthServer } from '../support/studio-servers.js';

const chromium = chromiumPath();

describe.skipIf(!chromium)('studio: Sign-in', () => {
  const chrome = useChromium(chromium);
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld();
  });
  afterAll(async () => {
    await world?.close();
  });
  const studio = useStudioProcess(() => ({
    servers: { world: oauthServer(world.mcpUrl) },
    // the authorization server is on another loopback port: allowed by name
    args: [...ALLOW_ALL, '--allowed-origin', world.issuer],
  }));

  it('signs in through the authorization server in the browser; the server then connects', async () => {
    await withStudio(chrome.browser, studio, 'signin', async ({ context, page }) => {
      await waitForServerStatus(page, 'world', 'needs-auth');
      await showPage(page, 'signin');
      const row = byTestIdAnd(page, 'signin-row', 'data-server', 'world');
      await expect
        .poll(() => textOf(row.getByTestId('signin-status')), STUDIO_WAIT)
        .toMatch(/needs-auth/);
      await row.getByTestId('signin-start').click();
      const link = row.getByTestId('signin-link');
      await link.waitFor({ timeout: STUDIO_WAIT.timeout });
      const href = (await link.getAttribute('href')) ?? '';
      expect(new URL(href).origin).toBe(world.issuer);
      await saveScreenshot(page, 'signin');

      // follow the link as a user does: a new tab when it targets one, else this tab
      const before = world.counters();
      const opensTab = (await link.getAttribute('target')) === '_blank';
      const [tab] = opensTab
        ? await Promise.all([context.waitForEvent('page'), link.click()])
        : [page, await link.click()];
      // login and consent answer themselves (the fixture's user always agrees), then the
      // authorization server redirects to the studio's own callback
      await tab.waitForURL((url) => url.origin === studio.origin, {
        timeout: STUDIO_WAIT.timeout,
      });
      const after = world.counters();
      expect(after.authorizationRequests - before.authorizationRequests).toBe(1);
      await expect
        .poll(() => world.counters().tokenRequests['authorization_code'] ?? 0, STUDIO_WAIT)
        .toBe(1);
      if (tab !== page) await tab.close();
      else await page.goto(`${studio.origin}/#/signin`);

      await waitForServerStatus(page, 'world', 'connected');
      await selectTool(page, 'world', 'whoami');
      await page.getByTestId('tool-call').click();
      await waitForResult(page, 'user-1');
    });
  });
});
