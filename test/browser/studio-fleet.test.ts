/**
 * The studio's Fleet page and a task cancelled from the Approvals page, in headless Chromium,
 * against a real worker fleet on the real PostgreSQL (test/support/studio-fleet.ts: a worker
 * with a scripted model and MCP servers over stdio). The studio runs in this process on the
 * fleet's store, with the built page. The Fleet page lists the fleet's one running session
 * (with the run that holds it), its one queued session (with its input) and its parked ones;
 * the Approvals page shows the task a parked run waits on (status, the server's message, id,
 * server, tool, last poll, ttl), and Cancel the task makes the tasks fixture see exactly one
 * `tasks/cancel`, after which the resumed run completes here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/model/index.js';
import { startStudio } from '../../src/studio/index.js';
import type { RunningStudio } from '../../src/studio/index.js';
import { requestsFor } from '../mcp/tasks/tasks-fixture.js';
import { chromiumPath, useChromium } from '../support/browser.js';
import { databaseUrl } from '../support/database.js';
import { assertStudioBuilt, type StudioProcess } from '../support/studio.js';
import { fleetTurn, startStudioFleet } from '../support/studio-fleet.js';
import type { StudioFleet } from '../support/studio-fleet.js';
import { byTestIdAnd, openTab, STUDIO_WAIT, textOf, withStudio } from '../support/studio-page.js';

const chromium = chromiumPath();
const url = databaseUrl();

/** The in-process studio as test/support/studio-page.ts takes it (it reads its URL and origin). */
function asProcess(studio: RunningStudio): StudioProcess {
  const token = new URL(studio.url).searchParams.get('token') ?? '';
  return {
    url: studio.url,
    origin: studio.origin,
    port: studio.port,
    token,
    workdir: '',
    home: '',
    output: () => ({ stdout: '', stderr: '' }),
    close: () => studio.close(),
  };
}

describe.skipIf(!chromium || !url)('studio: the fleet of workers, and a task cancelled', () => {
  const chrome = useChromium(chromium);
  let fleet: StudioFleet;
  let studio: RunningStudio;
  beforeAll(async () => {
    assertStudioBuilt();
    fleet = await startStudioFleet(url!, 'pagefleet');
    studio = await startStudio({
      model: scriptedModel(Array.from({ length: 5 }, () => fleetTurn)),
      sessionStore: fleet.store(),
      storeKind: 'postgres',
      fleet: { schema: fleet.db.bossSchema },
      mcpServers: fleet.servers,
      mcp: { strictConfig: true },
      allow: ['mcp_connect:*', 'mcp__t__*'],
    });
  });
  afterAll(async () => {
    await studio?.close();
    await fleet?.close();
  });

  it('the Fleet page lists the running, queued and parked sessions', async () => {
    await withStudio(chrome.browser, asProcess(studio), 'fleet', async ({ context }) => {
      const page = await openTab(context, asProcess(studio), 'fleet');
      const { sessions } = fleet;
      const item = (sessionId: string) =>
        byTestIdAnd(page.getByTestId('page-fleet'), 'fleet-item', 'data-session', sessionId);

      const running = item(sessions.running);
      await running.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await running.getAttribute('data-state')).toBe('running');
      expect(await textOf(running.getByTestId('fleet-holder'))).toBe(fleet.holder);
      expect(await textOf(running.getByTestId('fleet-job'))).toContain('active');

      const queued = item(sessions.queued);
      expect(await queued.getAttribute('data-state')).toBe('queued');
      expect(await textOf(queued.getByTestId('fleet-input'))).toBe('Queued work.');
      expect(await textOf(queued.getByTestId('fleet-status'))).toMatch(/not started/);

      const parked = item(sessions.parked);
      expect(await parked.getAttribute('data-state')).toBe('parked');
      expect(await textOf(parked.getByTestId('fleet-waits'))).toBe('approval');
      expect(await textOf(item(sessions.task).getByTestId('fleet-waits'))).toBe('task');

      expect(await textOf(page.getByTestId('fleet-count-running'))).toBe('1');
      expect(await textOf(page.getByTestId('fleet-count-queued'))).toBe('1');
      expect(await textOf(page.getByTestId('fleet-count-parked'))).toBe('2');
      expect(await textOf(page.getByTestId('fleet-queue'))).toContain(fleet.db.bossSchema);
    });
  });

  it("the Approvals page shows the task's status; Cancel the task reaches the server once", async () => {
    await withStudio(chrome.browser, asProcess(studio), 'fleet-task', async ({ context }) => {
      const page = await openTab(context, asProcess(studio), 'approvals');
      const card = byTestIdAnd(page, 'task-wait-item', 'data-task', fleet.taskId);
      await card.waitFor({ timeout: STUDIO_WAIT.timeout });
      expect(await card.getAttribute('data-session')).toBe(fleet.sessions.task);
      expect(await textOf(card.getByTestId('task-wait-tool'))).toBe('mcp__t__finish');
      expect(await textOf(card.getByTestId('task-status'))).toBe('working');
      expect(await textOf(card.getByTestId('task-status-message'))).toBe('finish is working');
      expect(await textOf(card.getByTestId('task-id'))).toBe(fleet.taskId);
      expect(await textOf(card.getByTestId('task-polled'))).not.toBe('not yet');
      expect(await textOf(card.getByTestId('task-ttl'))).toMatch(/^60 s \(until /);
      expect(await textOf(card.getByTestId('wait-server'))).toBe('t');
      expect(requestsFor(fleet.tasks.log(), 'tasks/cancel', fleet.taskId)).toBe(0);

      await card.getByTestId('task-cancel').click();
      const resumed = byTestIdAnd(page, 'resumed-run', 'data-session', fleet.sessions.task);
      await expect
        .poll(() => textOf(resumed.getByTestId('resumed-run-status')), STUDIO_WAIT)
        .toBe('completed');
      expect(await textOf(resumed.getByTestId('resumed-run-text'))).toMatch(
        /^finished: .*cancelled by a decision/,
      );
      expect(requestsFor(fleet.tasks.log(), 'tasks/cancel', fleet.taskId)).toBe(1);
      // the run took up its wait: the card leaves the page
      await expect.poll(() => card.count(), STUDIO_WAIT).toBe(0);
      expect(
        fleet.tasks.log().filter((r) => r.method === 'tools/call' && r.tool === 'finish'),
      ).toHaveLength(1);
    });
  });
});
