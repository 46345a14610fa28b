/**
 * An elicitation form on the Elicitations page: a call of form-server's `signup` (started
 * from the Tools page in one tab) asks for `{ name, age, plan, newsletter }`; in another tab
 * the form rendered from `requestedSchema` is first submitted with an invalid age (the page
 * shows the error, nothing is sent), then with valid values, and the call's result shows
 * what was answered.
 */
import { describe, expect, it } from 'vitest';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import {
  openTab,
  selectTool,
  STUDIO_WAIT,
  textOf,
  waitForResult,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import { ALLOW_ALL, formServer } from '../support/studio-servers.js';

const chromium = chromiumPath();

describe.skipIf(!chromium)('studio: Elicitations', () => {
  const chrome = useChromium(chromium);
  const studio = useStudioProcess(() => ({ servers: { form: formServer() }, args: ALLOW_ALL }));

  it('validates the form in the page, then sends the valid answer to the server', async () => {
    await withStudio(chrome.browser, studio, 'elicitations', async ({ context, page }) => {
      await waitForServerStatus(page, 'form', 'connected');
      await selectTool(page, 'form', 'signup');
      await page.getByTestId('tool-call').click();

      const forms = await openTab(context, studio, 'elicitations');
      const answers: string[] = [];
      forms.on('request', (request) => {
        if (
          request.method() === 'POST' &&
          new URL(request.url()).pathname.startsWith('/api/elicitations/')
        )
          answers.push(request.postData() ?? '');
      });
      const item = forms.getByTestId('elicitation-item');
      await item.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await textOf(item.getByTestId('elicitation-message'))).toContain(
        'Sign-up details, please.',
      );
      await expect
        .poll(() => textOf(forms.getByTestId('elicitations-count')), STUDIO_WAIT)
        .toBe('1');
      expect(await item.getByTestId('field-age').getAttribute('type')).toBe('number');
      expect(await item.getByTestId('field-newsletter').getAttribute('type')).toBe('checkbox');
      expect(
        await item.getByTestId('field-plan').evaluate((select) => select.tagName.toLowerCase()),
      ).toBe('select');

      await item.getByTestId('field-name').fill('Ada');
      await item.getByTestId('field-age').fill('-1'); // minimum 0
      await item.getByTestId('field-plan').selectOption('pro');
      await item.getByTestId('field-newsletter').check();
      await item.getByTestId('elicitation-submit').click();
      // the page's own check: the field's message (field-error-<property>) or a form error
      await forms
        .locator('[data-testid="field-error-age"], [data-testid="form-error"]')
        .first()
        .waitFor();
      expect(answers).toEqual([]);
      expect(await forms.getByTestId('elicitation-item').count()).toBe(1);

      await item.getByTestId('field-age').fill('36');
      await saveScreenshot(forms, 'elicitations');
      await item.getByTestId('elicitation-submit').click();
      await expect.poll(() => forms.getByTestId('elicitation-item').count(), STUDIO_WAIT).toBe(0);
      expect(answers).toHaveLength(1);
      expect(JSON.parse(answers[0] ?? '')).toEqual({
        action: 'accept',
        content: { name: 'Ada', age: 36, plan: 'pro', newsletter: true },
      });

      await waitForResult(page, 'signup accept');
      const result = await textOf(page.getByTestId('result-text').first());
      const answered = JSON.parse(result.slice(result.indexOf('{'), result.lastIndexOf('}') + 1));
      expect(answered).toEqual({ name: 'Ada', age: 36, plan: 'pro', newsletter: true });
    });
  });
});
