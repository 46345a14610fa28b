/**
 * What server-everything's tools and templates return, as the page shows it: an image
 * block as an `<img>` with a `data:` source, structured content as JSON, a resource
 * template whose argument completes from the server, and a URL-mode elicitation shown as a
 * link the studio never opens.
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
import { ALLOW_ALL, everythingServer } from '../support/studio-servers.js';

const chromium = chromiumPath();

/** server-everything's text template: its `resourceId` completes to itself when an integer. */
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';

/** Where the URL-mode elicitation points (never opened: nothing listens there). */
const ELICITATION_URL = 'https://auth.example.test/approve?request=studio-42';

/** Longer than a popup takes to open in a local headless browser. */
const POPUP_GRACE_MS = 2_000;

describe.skipIf(!chromium)('studio: results, templates and URL elicitations', () => {
  const chrome = useChromium(chromium);
  const studio = useStudioProcess(() => ({
    servers: { everything: everythingServer() },
    args: ALLOW_ALL,
  }));

  it('shows an image block as an img with a data: source', async () => {
    await withStudio(chrome.browser, studio, 'result-image', async ({ page }) => {
      await waitForServerStatus(page, 'everything', 'connected');
      await selectTool(page, 'everything', 'get-tiny-image');
      await page.getByTestId('tool-call').click();
      const image = page.getByTestId('tool-result').getByTestId('result-image').first();
      await image.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await image.evaluate((el) => el.tagName.toLowerCase())).toBe('img');
      expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]/);
      // decoded by the browser: a real picture, not a broken one
      await expect
        .poll(
          () => image.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
          STUDIO_WAIT,
        )
        .toBeGreaterThan(0);
      await saveScreenshot(page, 'result-image');
    });
  });

  it('shows structured content as JSON', async () => {
    await withStudio(chrome.browser, studio, 'result-json', async ({ page }) => {
      await waitForServerStatus(page, 'everything', 'connected');
      await selectTool(page, 'everything', 'get-structured-content');
      await page.getByTestId('field-location').selectOption('Chicago');
      await page.getByTestId('tool-call').click();
      const json = page.getByTestId('tool-result').getByTestId('result-json').first();
      await json.waitFor({ timeout: STUDIO_WAIT.timeout });
      const shown = JSON.parse(await textOf(json)) as Record<string, unknown>;
      expect(typeof shown['temperature']).toBe('number');
      expect(typeof shown['conditions']).toBe('string');
      expect(typeof shown['humidity']).toBe('number');
    });
  });

  it('completes a template argument from the server, then reads the URI it makes', async () => {
    await withStudio(chrome.browser, studio, 'template-completion', async ({ page }) => {
      await waitForServerStatus(page, 'everything', 'connected');
      await showPage(page, 'resources');
      await page.getByTestId('resources-server').selectOption('everything');
      await byTestIdAnd(page, 'template-item', 'data-uri-template', TEXT_TEMPLATE).click();
      const field = page.getByTestId('field-resourceId');
      await field.pressSequentially('42');
      const option = page.getByTestId('completion-option').filter({ hasText: /^42$/ });
      await option.waitFor({ timeout: STUDIO_WAIT.timeout });
      // not an integer: the server suggests nothing
      await field.fill('');
      await field.pressSequentially('x');
      await expect.poll(() => page.getByTestId('completion-option').count(), STUDIO_WAIT).toBe(0);
      await field.fill('');
      await field.pressSequentially('42');
      await option.click();
      expect(await field.inputValue()).toBe('42');
      await page.getByTestId('template-read').click();
      await expect
        .poll(() => textOf(page.getByTestId('resource-content')), STUDIO_WAIT)
        .toContain('Resource 42');
      expect(await textOf(page.getByTestId('resource-content'))).toContain(
        'demo://resource/dynamic/text/42',
      );
    });
  });

  it('shows a URL-mode elicitation as a link and never opens it', async () => {
    await withStudio(chrome.browser, studio, 'elicitation-url', async ({ context, page }) => {
      await waitForServerStatus(page, 'everything', 'connected');
      const opened: string[] = [];
      context.on('page', (p) => opened.push(p.url()));
      const forms = await openTab(context, studio, 'elicitations');
      opened.length = 0;

      await selectTool(page, 'everything', 'trigger-url-elicitation');
      await page.getByTestId('field-url').fill(ELICITATION_URL);
      await page.getByTestId('field-message').fill('Approve the studio, please.');
      await page.getByTestId('tool-call').click();

      const item = forms.getByTestId('elicitation-item');
      await item.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await textOf(item.getByTestId('elicitation-message'))).toContain(
        'Approve the studio, please.',
      );
      const link = item.getByTestId('elicitation-link');
      expect(await link.evaluate((el) => el.tagName.toLowerCase())).toBe('a');
      expect(await link.getAttribute('href')).toBe(ELICITATION_URL);
      expect(await link.getAttribute('target')).toBe('_blank');
      expect((await link.getAttribute('rel'))?.split(/\s+/).sort()).toEqual(
        ['noopener', 'noreferrer'].sort(),
      );
      // shown, not followed: no tab or popup appears while it waits
      await forms.waitForTimeout(POPUP_GRACE_MS);
      expect(opened).toEqual([]);
      expect(context.pages().map((p) => p.url())).not.toContain(ELICITATION_URL);
      await saveScreenshot(forms, 'elicitation-url');

      await item.getByTestId('elicitation-decline').click();
      await expect.poll(() => forms.getByTestId('elicitation-item').count(), STUDIO_WAIT).toBe(0);
      await waitForResult(page, /decline/i);
      expect(opened).toEqual([]);
    });
  });
});
