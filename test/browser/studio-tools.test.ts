/**
 * The Servers and Tools pages against the real studio and the npm reference servers: every
 * server connects, and server-everything's `echo` and `get-sum` are called from the forms
 * the page generates from their input schemas, the results shown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import {
  selectTool,
  textOf,
  waitForResult,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import {
  ALLOW_ALL,
  everythingServer,
  filesystemServer,
  memoryServer,
} from '../support/studio-servers.js';

const chromium = chromiumPath();

describe.skipIf(!chromium)('studio: Servers and Tools', () => {
  const chrome = useChromium(chromium);
  let data: string;
  beforeAll(() => {
    data = mkdtempSync(join(tmpdir(), 'muster-studio-data-'));
  });
  afterAll(() => {
    if (data) rmSync(data, { recursive: true, force: true });
  });
  const studio = useStudioProcess(() => ({
    servers: {
      everything: everythingServer(),
      memory: memoryServer(join(data, 'memory')),
      files: filesystemServer(join(data, 'files')),
    },
    args: ALLOW_ALL,
  }));

  it('shows every server connected, then calls echo and get-sum from their generated forms', async () => {
    await withStudio(chrome.browser, studio, 'tools', async ({ page }) => {
      for (const name of ['everything', 'memory', 'files']) {
        await waitForServerStatus(page, name, 'connected');
      }
      await saveScreenshot(page, 'servers');

      await selectTool(page, 'everything', 'echo');
      await expect.poll(() => textOf(page.getByTestId('tool-schema'))).toContain('message');
      const message = page.getByTestId('field-message');
      expect(await message.getAttribute('name')).toBe('message');
      await message.fill('hello from the browser');
      await page.getByTestId('tool-call').click();
      await waitForResult(page, 'hello from the browser');
      expect(await textOf(page.getByTestId('result-text').first())).toContain(
        'hello from the browser',
      );
      expect(await textOf(page.getByTestId('tool-decision'))).toMatch(/allow/i);

      await selectTool(page, 'everything', 'get-sum');
      for (const field of ['a', 'b']) {
        expect(await page.getByTestId(`field-${field}`).getAttribute('type')).toBe('number');
      }
      await page.getByTestId('field-a').fill('2');
      await page.getByTestId('field-b').fill('3');
      await page.getByTestId('tool-call').click();
      await waitForResult(page, /\b5\b/);
      expect(await textOf(page.getByTestId('result-text').first())).toMatch(/2.*3.*\b5\b/);
      expect(await textOf(page.getByTestId('tool-duration'))).toMatch(/\d/);
      await saveScreenshot(page, 'tools');
    });
  });
});
