/**
 * A connection waiting for a person shows what it will run: a stdio server registered from
 * the Servers page (with a canary in its env) puts a card on the Approvals page that shows
 * its command, its arguments as declared, its working directory and its env variable names,
 * never the env value. Denied, nothing runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumPath, useChromium } from '../support/browser.js';
import { useStudioProcess } from '../support/studio.js';
import { openTab, STUDIO_WAIT, textOf, withStudio } from '../support/studio-page.js';
import { CANARY } from '../support/studio-servers.js';

const chromium = chromiumPath();

describe.skipIf(!chromium)('studio: connection approvals', () => {
  const chrome = useChromium(chromium);
  // no --allow mcp_connect: every connection waits for a person
  const studio = useStudioProcess(() => ({ servers: {}, args: ['--default', 'ask'] }));

  it('shows the command and args of a registered server, and no env value', async () => {
    await withStudio(chrome.browser, studio, 'connect-approval', async ({ context, page }) => {
      const marker = join(studio.workdir, 'touched-by-shx');
      const args = ['-c', `touch ${marker}`];
      await page.getByTestId('register-name').fill('shx');
      await page
        .getByTestId('register-config')
        .fill(
          JSON.stringify({ command: 'sh', args, cwd: studio.workdir, env: { MUSTER_KEY: CANARY } }),
        );
      await page.getByTestId('register-submit').click();

      const approvals = await openTab(context, studio, 'approvals');
      const item = approvals.locator('[data-testid="approval-item"][data-tool="mcp_connect:shx"]');
      await item.waitFor({ timeout: STUDIO_WAIT.timeout });
      const connection = item.getByTestId('approval-connection');
      expect(await textOf(connection.getByTestId('approval-command'))).toBe('sh');
      expect(JSON.parse(await textOf(connection.getByTestId('approval-command-args')))).toEqual(
        args,
      );
      const facts = await textOf(connection);
      expect(facts).toContain(studio.workdir);
      expect(facts).toContain('MUSTER_KEY');
      expect(facts).toContain('a registration at run time');
      expect(await approvals.content()).not.toContain(CANARY);

      await item.getByTestId('approval-deny').click();
      await item.waitFor({ state: 'detached', timeout: STUDIO_WAIT.timeout });
      await expect
        .poll(() => textOf(page.getByTestId('form-error')), STUDIO_WAIT)
        .toContain('TOOL_DENIED');
      // denied: the command never ran
      expect(existsSync(marker)).toBe(false);
      expect(await approvals.content()).not.toContain(CANARY);
    });
  });
});
