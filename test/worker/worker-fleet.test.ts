import { afterAll, describe, it } from 'vitest';
import { databaseUrl } from '../support/database.js';
import { newFleet, runFleet } from './fleet-scenario.js';
import { workerDb } from './worker-db.js';

// SPEC 15.5: four worker processes, one of them the `muster worker` command, take 100 queued
// runs, each calling a real MCP tool once (the fleet suite runs 1,000: test/fleet/).

const url = databaseUrl();

describe.skipIf(!url)('a fleet of worker processes', () => {
  const db = workerDb(url ?? '', 'fleet');
  const fleet = newFleet();
  afterAll(async () => {
    fleet.dispose();
    await db.drop();
  });

  it('4 processes (one `muster worker`), 100 sessions: every session completes, each call runs once, no message is lost, the command runs some, and SIGTERM leaves no lease', async () => {
    await runFleet(db, fleet, 100, 50_000);
  }, 90_000);
});
