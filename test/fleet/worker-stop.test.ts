import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import type { ChildRun } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from '../worker/worker-db.js';
import { gateCalls, openGate, parentOf, startWorker } from './fleet-harness.js';

// SPEC 15.5: a worker stopped (SIGSTOP) past its lease while its tool call is in flight; another
// worker takes the session over and ends it. Continued (SIGCONT), the stopped worker gets its
// call's result and goes on writing: every such write carries its old fencing token and is
// refused, so not one row (message or event) of its run is written after the takeover.

const url = databaseUrl();
const ID = 's-3000';

describe.skipIf(!url)('SIGSTOP of a worker past its lease, then SIGCONT', () => {
  const db = workerDb(url ?? '', 'stop');
  const all: ChildRun[] = [];
  afterAll(async () => {
    for (const c of all) {
      if (c.child.exitCode !== null) continue;
      c.child.kill('SIGCONT');
      c.child.kill('SIGKILL');
    }
    await db.drop();
  });

  it('writes 0 rows after the takeover: its messages and events are fenced off', async () => {
    const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    const agent = createAgent({ sessionStore: store });
    const producer = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
    const count = async (sql: string, values: unknown[]) =>
      Number((await db.query<{ n: string }>(sql, values))[0]!.n);
    try {
      for (let i = 0; i < 2; i++) all.push(await startWorker(db));
      await producer.enqueue({ input: `Run ${ID}.`, sessionId: ID });
      await vi.waitFor(() => expect(gateCalls(db, ID)).toHaveLength(1), {
        timeout: 20_000,
        interval: 20,
      });
      const stopped = all.find((w) => w.child.pid === parentOf(gateCalls(db, ID)[0]!))!;
      expect(stopped).toBeDefined();
      const [lease] = await db.query<{ token: string; owner: string }>(
        `SELECT token, owner FROM "${db.schema}".muster_leases WHERE session_id = $1`,
        [ID],
      );
      const rowsOf = {
        messages: () =>
          count(
            `SELECT count(*) AS n FROM "${db.schema}".muster_messages WHERE session_id = $1 AND (lease_token = $2 OR lease_owner = $3)`,
            [ID, lease!.token, lease!.owner],
          ),
        events: () =>
          count(
            `SELECT count(*) AS n FROM "${db.schema}".muster_events WHERE session_id = $1 AND body LIKE $2`,
            [ID, `%${lease!.owner}%`],
          ),
      };
      // the run's user message and tool call are committed under its lease before the call
      const before = { messages: await rowsOf.messages(), events: await rowsOf.events() };
      expect(before.messages).toBeGreaterThan(0);

      stopped.child.kill('SIGSTOP');
      // the other worker takes the session over once the lease expired, and ends the run
      await vi.waitFor(
        async () => {
          const [now] = await db.query<{ token: string }>(
            `SELECT token FROM "${db.schema}".muster_leases WHERE session_id = $1`,
            [ID],
          );
          expect(BigInt(now!.token)).toBeGreaterThan(BigInt(lease!.token));
          expect((await store.get(ID))?.status).toBe('completed');
        },
        { timeout: 30_000, interval: 100 },
      );
      const done = await store.get(ID);
      expect(done?.finalContent).toBe(`done ${ID}`);
      const result = done!.messages.find((m) => m.role === 'tool');
      expect(result?.content).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\]/);

      // the stopped worker's call answers, and it goes on: its writes are refused
      openGate(db, ID);
      stopped.child.kill('SIGCONT');
      stopped.child.kill('SIGTERM');
      expect((await stopped.exited).code, stopped.stderr()).toBe(0);
      expect({ messages: await rowsOf.messages(), events: await rowsOf.events() }).toEqual(before);
      expect(await store.get(ID)).toEqual(done);
      expect(gateCalls(db, ID)).toHaveLength(1);

      for (const w of all) if (w !== stopped) w.child.kill('SIGTERM');
      for (const w of all) expect((await w.exited).code, w.stderr()).toBe(0);
    } finally {
      await producer.stop();
      await agent.close();
      await store.close();
    }
  }, 60_000);
});
