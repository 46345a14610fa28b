import { afterAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../support/database.js';
import { newFleet, runFleet } from '../worker/fleet-scenario.js';
import { workerDb } from '../worker/worker-db.js';

// SPEC 15.5 at scale: the default suite's fleet (four worker processes, one of them the
// `muster worker` command; test/worker/worker-fleet.test.ts) with 1,000 queued sessions,
// each calling a real MCP tool once: every session completes, each call runs exactly once,
// no message is lost.

const url = databaseUrl();
const SESSIONS = 1_000;

describe.skipIf(!url)('a fleet of worker processes, 1,000 sessions', () => {
  const db = workerDb(url ?? '', 'thousand');
  const fleet = newFleet();
  afterAll(async () => {
    fleet.dispose();
    await db.drop();
  });

  it('4 processes (one `muster worker`), 1,000 sessions: every session completes, each call runs once, no message is lost, the command runs some, and SIGTERM leaves no lease', async () => {
    const { byCommand, completedMs } = await runFleet(db, fleet, SESSIONS, 150_000);
    console.log(
      `fleet: ${SESSIONS} sessions completed in ${(completedMs / 1000).toFixed(1)} s (${((SESSIONS * 1000) / completedMs).toFixed(0)} runs/s), ${byCommand} of them by muster worker`,
    );
    expect(byCommand).toBeGreaterThan(0);
  }, 200_000);
});
