/**
 * The Servers page changes the registry: a fixture server registered from the JSON config
 * textarea connects and lists its tools, then is unregistered and gone; a bad declaration
 * is refused with INVALID_CONFIGURATION and nothing is added; a server that failed to start
 * connects after its cause is fixed and Reconnect is pressed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import {
  selectTool,
  serverRow,
  showPage,
  STUDIO_WAIT,
  textOf,
  waitForResult,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import { ALLOW_ALL, basicServer, gatedServer } from '../support/studio-servers.js';

const chromium = chromiumPath();

describe.skipIf(!chromium)('studio: Servers page', () => {
  const chrome = useChromium(chromium);
  const gateDir = mkdtempSync(join(tmpdir(), 'studio-gate-'));
  const gate = join(gateDir, 'open');
  afterAll(() => {
    rmSync(gateDir, { recursive: true, force: true });
  });
  const studio = useStudioProcess(() => ({
    servers: { gated: gatedServer(gate) },
    args: ALLOW_ALL,
  }));

  it('registers a server from its JSON config, then unregisters it', async () => {
    await withStudio(chrome.browser, studio, 'servers-register', async ({ page }) => {
      await showPage(page, 'servers');
      await page.getByTestId('register-name').fill('extra');
      await page.getByTestId('register-config').fill(JSON.stringify(basicServer(), null, 2));
      await page.getByTestId('register-submit').click();
      await waitForServerStatus(page, 'extra', 'connected');
      await expect.poll(() => page.getByTestId('register-name').inputValue()).toBe('');

      // its tools are there to call
      await selectTool(page, 'extra', 'echo');
      await page.getByTestId('field-text').fill('registered');
      await page.getByTestId('tool-call').click();
      await waitForResult(page, /registered/);

      await showPage(page, 'servers');
      await serverRow(page, 'extra').getByTestId('server-unregister').click();
      await expect.poll(() => serverRow(page, 'extra').count(), STUDIO_WAIT).toBe(0);
      await showPage(page, 'tools');
      const options = await page.getByTestId('tools-server').locator('option').allTextContents();
      expect(options.some((o) => o.includes('extra'))).toBe(false);
    });
  });

  it('refuses a bad declaration with INVALID_CONFIGURATION', async () => {
    await withStudio(chrome.browser, studio, 'servers-invalid', async ({ page }) => {
      await showPage(page, 'servers');
      await page.getByTestId('register-name').fill('broken');
      await page
        .getByTestId('register-config')
        .fill(JSON.stringify({ command: process.execPath, bogus: true }));
      await page.getByTestId('register-submit').click();
      const error = page.getByTestId('form-error');
      await error.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await textOf(error)).toContain('INVALID_CONFIGURATION');
      expect(await serverRow(page, 'broken').count()).toBe(0);
      // what was typed stays, to be fixed
      expect(await page.getByTestId('register-name').inputValue()).toBe('broken');
    });
  });

  it('reconnects a server that failed once its cause is fixed', async () => {
    await withStudio(chrome.browser, studio, 'servers-reconnect', async ({ page }) => {
      await waitForServerStatus(page, 'gated', 'failed');
      const row = serverRow(page, 'gated');
      expect(await textOf(row.getByTestId('server-error'))).toMatch(/MCP_/);
      // still failing: the row says so, with the error code
      await row.getByTestId('server-reconnect').click();
      await row.getByTestId('form-error').waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await textOf(row.getByTestId('form-error'))).toMatch(/MCP_/);
      await expect.poll(() => textOf(row.getByTestId('server-status')), STUDIO_WAIT).toBe('failed');

      writeFileSync(gate, '');
      await row.getByTestId('server-reconnect').click();
      await expect
        .poll(() => textOf(row.getByTestId('server-status')), STUDIO_WAIT)
        .toBe('connected');
      await expect.poll(() => row.getByTestId('form-error').count(), STUDIO_WAIT).toBe(0);
      await saveScreenshot(page, 'servers-reconnected');
    });
  });
});
