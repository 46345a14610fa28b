/**
 * Archived references on the page, against the real studio and the big-result fixture: a
 * result over the archive threshold shows its preview and a pager whose "Load more" reads
 * the rest a page at a time, until the whole result is shown — on the Tools page (a direct
 * call) and in a run's timeline (the call of a scripted model).
 */
import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { bigText } from '../fixtures/mcp/fixture-data.mjs';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import {
  selectTool,
  startRun,
  STUDIO_WAIT,
  textOf,
  waitForResult,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import {
  ALLOW_ALL,
  BIG_RESULT,
  bigResultRunTurns,
  bigResultServer,
} from '../support/studio-servers.js';

const chromium = chromiumPath();

/** Clicks "Load more" until the pager has no more to load; returns the clicks. */
async function loadAll(pager: Locator, expected: string): Promise<number> {
  let clicks = 0;
  while ((await pager.getByTestId('archive-more').count()) > 0) {
    const before =
      (await pager.getByTestId('archive-text').count()) > 0
        ? (await textOf(pager.getByTestId('archive-text'))).length
        : 0;
    await pager.getByTestId('archive-more').click();
    clicks += 1;
    await expect
      .poll(async () => (await textOf(pager.getByTestId('archive-text'))).length, STUDIO_WAIT)
      .toBeGreaterThan(before);
    expect(clicks).toBeLessThanOrEqual(Math.ceil(expected.length / 65536));
  }
  return clicks;
}

describe.skipIf(!chromium)('studio: archived results', () => {
  const chrome = useChromium(chromium);
  const studio = useStudioProcess(() => ({
    servers: { [BIG_RESULT.server]: bigResultServer() },
    turns: bigResultRunTurns(),
    args: ALLOW_ALL,
  }));

  it('pages a big result of the Tools page to its end with Load more', async () => {
    const expected = bigText(BIG_RESULT.toolsKib);
    await withStudio(chrome.browser, studio, 'archive-tools', async ({ page }) => {
      await waitForServerStatus(page, BIG_RESULT.server, 'connected');
      await selectTool(page, BIG_RESULT.server, BIG_RESULT.tool);
      await page.getByTestId('field-kib').fill(String(BIG_RESULT.toolsKib));
      await page.getByTestId('tool-call').click();
      await waitForResult(page, /archived: ref=ref_/);
      // the preview, not the whole result
      const preview = await textOf(page.getByTestId('result-text').first());
      expect(preview).toContain(expected.slice(0, 512));
      expect(preview.length).toBeLessThan(4096);

      const pager = page.getByTestId('archive-pager');
      expect(await pager.count()).toBe(1);
      expect(await pager.getByTestId('archive-text').count()).toBe(0);
      const clicks = await loadAll(pager, expected);
      expect(clicks).toBe(Math.ceil(expected.length / 65536));
      // textOf trims: the text ends with a newline
      expect(await textOf(pager.getByTestId('archive-text'))).toBe(expected.trim());
      await saveScreenshot(page, 'archive-pager');
    });
  });

  it('pages the archived result of a run’s tool call from its timeline', async () => {
    const expected = bigText(BIG_RESULT.runKib);
    await withStudio(chrome.browser, studio, 'archive-run', async ({ page }) => {
      await waitForServerStatus(page, BIG_RESULT.server, 'connected');
      await startRun(page, BIG_RESULT.prompt);
      await expect
        .poll(() => textOf(page.getByTestId('run-status')), STUDIO_WAIT)
        .toBe('completed');
      const completed = page
        .getByTestId('run-timeline')
        .locator('[data-testid="timeline-item"][data-type="tool.completed"]');
      const pager = completed.getByTestId('archive-pager');
      await pager.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await textOf(completed.getByTestId('archive-preview'))).toContain('ref=ref_');
      await loadAll(pager, expected);
      expect(await textOf(pager.getByTestId('archive-text'))).toBe(expected.trim());
    });
  });
});
