import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import type { ChildRun } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from '../worker/worker-db.js';
import { gateCalls, gateKeys, openGate, parentOf, startWorker } from './fleet-harness.js';

// SPEC 15.5, `mcp.replay: 'idempotent'`: kill -9 of the worker whose call to a tool annotated
// `idempotentHint` is in flight (the server holds it); another worker takes the session over
// and sends the call once more, with the same idempotency key; the run ends with its result.

const url = databaseUrl();
const SESSIONS = ['s-4000', 's-4001', 's-4002'];
const REPLAY = { WORKER_TOOL: 'gate_idempotent', WORKER_REPLAY: 'idempotent' };

describe.skipIf(!url)('kill -9 with mcp.replay idempotent', () => {
  const db = workerDb(url ?? '', 'replay');
  const all: ChildRun[] = [];
  afterAll(async () => {
    for (const c of all) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await db.drop();
  });

  it('a call in flight on the killed worker is sent once more by the worker that takes over, and its result reaches the run', async () => {
    const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    const agent = createAgent({ sessionStore: store });
    const producer = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
    try {
      for (let i = 0; i < 2; i++) all.push(await startWorker(db, 4, REPLAY));
      for (const id of SESSIONS) await producer.enqueue({ input: `Run ${id}.`, sessionId: id });
      await vi.waitFor(
        () => {
          for (const id of SESSIONS) expect(gateCalls(db, id)).toHaveLength(1);
        },
        { timeout: 20_000, interval: 20 },
      );
      // the worker whose server holds the first session's call; the others may run there too
      const victim = all.find((w) => w.child.pid === parentOf(gateCalls(db, SESSIONS[0]!)[0]!))!;
      const killed = SESSIONS.filter((id) => parentOf(gateCalls(db, id)[0]!) === victim.child.pid);
      victim.child.kill('SIGKILL');
      await victim.exited;
      for (const id of SESSIONS) openGate(db, id);
      await vi.waitFor(
        async () => {
          for (const id of SESSIONS) expect((await store.get(id))?.status, id).toBe('completed');
        },
        { timeout: 30_000, interval: 50 },
      );
      for (const id of SESSIONS) {
        const state = await store.get(id);
        const results = state!.messages.filter((m) => m.role === 'tool');
        expect(results, id).toHaveLength(1);
        expect(results[0]!.content, id).toBe(`passed ${id}`);
        const keys = gateKeys(db, id);
        // once on the killed worker and once more on the one that took over; once elsewhere
        expect(keys, id).toHaveLength(killed.includes(id) ? 2 : 1);
        expect(new Set(keys), id).toEqual(new Set([`${id}:call_tally`]));
      }
      for (const w of all) if (w !== victim) w.child.kill('SIGTERM');
      for (const w of all) if (w !== victim) expect((await w.exited).code, w.stderr()).toBe(0);
    } finally {
      await producer.stop();
      await agent.close();
      await store.close();
    }
  }, 90_000);
});
