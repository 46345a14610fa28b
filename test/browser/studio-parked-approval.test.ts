/**
 * A run parked by another process, decided and resumed from the Approvals page: a child
 * process parks a call of the counting server in the studio's SQLite store (MUSTER_HOME's
 * `sessions.sqlite`) and exits; the page lists the wait with its tool, arguments and session,
 * the person allows it and resumes the run, which completes in the studio. The server saw
 * the call exactly once.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPolicyVersion } from '../../src/cli/cli-policy-version.js';
import type { Wait } from '../../src/session/index.js';
import { chromiumPath, saveScreenshot, useChromium } from '../support/browser.js';
import { startChild } from '../support/child-agent.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { useStudioProcess } from '../support/studio.js';
import {
  byTestIdAnd,
  openTab,
  STUDIO_WAIT,
  textOf,
  timelineTexts,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import { ASK_ALL } from '../support/studio-servers.js';

const chromium = chromiumPath();
const PARKER = fileURLToPath(new URL('../studio/park-in-child.ts', import.meta.url));
const TOOL = 'mcp__counting__echo';
const ARGS = { text: 'parked elsewhere' };
const FINAL = 'Resumed and done.';

describe.skipIf(!chromium)('studio: a run parked by another process', () => {
  const chrome = useChromium(chromium);
  const dir = mkdtempSync(join(tmpdir(), 'muster-parked-'));
  const log = join(dir, 'counting.log');
  const counting = stdioConfig('counting-server.mjs', [`--log=${log}`, '--log-requests']);
  const studio = useStudioProcess(() => ({
    servers: { counting },
    turns: [{ text: FINAL }],
    args: ASK_ALL,
  }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `tools/call` requests the counting servers read, whichever process sent them. */
  const toolCalls = (): number => {
    try {
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith(' tools/call')).length;
    } catch {
      return 0;
    }
  };

  it('lists the wait, allows it, resumes the run and shows it completed', async () => {
    await withStudio(chrome.browser, studio, 'parked-approval', async ({ context, page }) => {
      await waitForServerStatus(page, 'counting', 'connected');

      // another process parks a run on the studio's store. Its approver answers `park`, and
      // its policy version is the one `muster studio --allow mcp_connect:* --default ask`
      // binds decisions to, so the decision holds when the run resumes here
      const child = startChild(PARKER, {
        PARK_DB: join(studio.home, 'sessions.sqlite'),
        PARK_SESSION: 'session-parked-elsewhere',
        PARK_SERVERS: JSON.stringify({ counting }),
        PARK_TOOL: TOOL,
        PARK_ARGS: JSON.stringify(ARGS),
        PARK_POLICY: JSON.stringify({
          allow: ['mcp_connect:*'],
          default: 'ask',
          ruleIds: ['cli-connect-user-servers'],
          version: cliPolicyVersion({ allow: ['mcp_connect:*'], default: 'ask' }),
        }),
      });
      const [parked] = JSON.parse(await child.line('PARKED')) as Wait[];
      expect((await child.exited).code, child.stderr()).toBe(0);
      expect(toolCalls()).toBe(0);

      const approvals = await openTab(context, studio, 'approvals');
      const item = byTestIdAnd(approvals, 'wait-item', 'data-id', parked!.id);
      await item.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await textOf(item.getByTestId('wait-tool'))).toBe(TOOL);
      expect(JSON.parse(await textOf(item.getByTestId('wait-args')))).toEqual(ARGS);
      expect(await textOf(item.getByTestId('wait-session'))).toBe('session-parked-elsewhere');
      expect(await textOf(item.getByTestId('wait-state'))).toBe('pending');
      expect(await textOf(item.getByTestId('wait-expires'))).not.toBe('never');
      await expect
        .poll(() => textOf(approvals.getByTestId('approvals-count')), STUDIO_WAIT)
        .toBe('1');
      await saveScreenshot(approvals, 'approvals-parked');

      await item.getByTestId('wait-message').fill('checked by a person');
      await item.getByTestId('wait-allow').click();
      await expect.poll(() => textOf(item.getByTestId('wait-state')), STUDIO_WAIT).toBe('decided');
      expect(await textOf(item.getByTestId('wait-decision'))).toBe('allow: checked by a person');
      expect(toolCalls()).toBe(0);

      await item.getByTestId('wait-resume').click();
      const resumed = byTestIdAnd(approvals, 'resumed-run', 'data-session', parked!.sessionId);
      await expect
        .poll(() => textOf(resumed.getByTestId('resumed-run-status')), STUDIO_WAIT)
        .toBe('completed');
      await expect
        .poll(() => textOf(resumed.getByTestId('resumed-run-text')), STUDIO_WAIT)
        .toBe(FINAL);
      expect(toolCalls()).toBe(1);
      // the run took up its wait: it leaves the list and the counter
      await expect.poll(() => item.count(), STUDIO_WAIT).toBe(0);
      expect(await textOf(approvals.getByTestId('approvals-count'))).toBe('0');

      // its timeline is on the Runs page, as for a run started there
      await resumed.getByTestId('resumed-run-open').click();
      await approvals.getByTestId('page-runs').waitFor();
      expect(await textOf(approvals.getByTestId('run-status'))).toBe('completed');
      const completed = await timelineTexts(approvals, 'tool.completed');
      expect(completed.some((t) => t.includes(TOOL))).toBe(true);
      const decided = await timelineTexts(approvals, 'wait.decided');
      expect(decided.some((t) => t.includes(parked!.id) && t.includes('applied'))).toBe(true);
      await saveScreenshot(approvals, 'run-resumed');
    });
  });
});
