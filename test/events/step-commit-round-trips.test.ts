/**
 * One round trip per step commit (SPEC 13, 15.2): a run of 3 tool calls on PostgreSQL through
 * a loopback proxy that counts round trips; and a commit with a stale lease writes no message
 * and no event row, on PostgreSQL and SQLite.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { SessionPatch, SessionStore, SessionWriteOptions } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { databaseUrl } from '../support/database.js';
import { startRoundTripProxy } from '../support/round-trip-proxy.js';
import type { RoundTripProxy } from '../support/round-trip-proxy.js';

const url = databaseUrl();
const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
const now = new Date().toISOString();
const state = (id: string) => ({
  id,
  status: 'running' as const,
  messages: [],
  iteration: 0,
  createdAt: now,
  updatedAt: now,
  usage,
  archiveRefs: [],
});
const stalePatch = (): SessionPatch => ({
  appendMessages: [{ role: 'user', content: [{ type: 'text', text: 'late' }] }],
  appendEvents: [{ type: 'tool.called', json: JSON.stringify({ type: 'tool.called' }) }],
});

/** A stale lease: taken over by a second owner after the first one's expired. */
async function staleLease(store: SessionStore, id: string): Promise<SessionWriteOptions> {
  const first = await store.acquire!(id, 'a', 1);
  await new Promise((r) => setTimeout(r, 5));
  expect(await store.acquire!(id, 'b', 60_000)).toBeDefined();
  return { lease: { token: first!.token } };
}

describe.skipIf(!url)('PostgreSQL step commits', () => {
  const schema = `muster_rt_${randomBytes(5).toString('hex')}`;
  let proxy: RoundTripProxy;
  beforeAll(async () => {
    const target = new URL(url!);
    proxy = await startRoundTripProxy({ host: target.hostname, port: Number(target.port || 5432) });
  });
  afterAll(async () => {
    await proxy.close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  });

  it('a run of 3 tool calls commits each step in exactly one round trip', async () => {
    const trips: number[] = [];
    const patches: SessionPatch[] = [];
    class Counted extends PostgresSessionStore {
      override async update(id: string, patch: SessionPatch, options?: SessionWriteOptions) {
        const before = proxy.roundTrips;
        const result = await super.update(id, patch, options);
        trips.push(proxy.roundTrips - before);
        patches.push(patch);
        return result;
      }
    }
    const store = new Counted({ connectionString: proxy.urlFor(url!), schema });
    const echo = tool({
      name: 'echo',
      description: 'Echoes.',
      input: z.object({ n: z.number() }),
      execute: ({ n }) => `echo ${n}`,
    });
    const model = scriptedModel([
      { toolCalls: [{ name: 'echo', arguments: { n: 1 } }] },
      { toolCalls: [{ name: 'echo', arguments: { n: 2 } }] },
      { toolCalls: [{ name: 'echo', arguments: { n: 3 } }] },
      { text: 'done' },
    ]);
    const agent = createAgent({
      model,
      tools: [echo],
      sessionStore: store,
      policy: { allow: ['echo'] },
    });
    const result = await agent.send('go', { sessionId: 'three-calls', stream: false });
    expect(result.text).toBe('done');
    // opening, 3 x (assistant message with its call's start, result), the last answer, the
    // completion: a call's start rides the commit of the message that asked for it
    expect(trips).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1]);
    const starts = patches.filter((p) => p.appendStartedCalls !== undefined);
    expect(starts).toHaveLength(3);
    for (const p of starts) {
      const asked = p.appendMessages?.flatMap((m) =>
        m.role === 'assistant'
          ? m.content.flatMap((c) => (c.type === 'tool-call' ? [c.callId] : []))
          : [],
      );
      expect(p.appendStartedCalls).toEqual(asked);
      expect(asked).toHaveLength(1);
    }
    const log = await store.readEvents('three-calls', { afterSeq: 0 });
    expect(log.filter((e) => e.type === 'tool.completed')).toHaveLength(3);
    await agent.close();
    await store.close();
  });

  it('a commit with a stale lease writes no message and no event row', async () => {
    const store = new PostgresSessionStore({ connectionString: url!, schema });
    await store.create(state('stale'));
    const stale = await staleLease(store, 'stale');
    await expect(store.update('stale', stalePatch(), stale)).rejects.toMatchObject({
      code: 'SESSION_ALREADY_RUNNING',
    });
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const rows = await c.query(
      `SELECT (SELECT count(*) FROM "${schema}".muster_messages WHERE session_id = 'stale')::int AS m,
              (SELECT count(*) FROM "${schema}".muster_events WHERE session_id = 'stale')::int AS e`,
    );
    await c.end();
    expect(rows.rows).toEqual([{ m: 0, e: 0 }]);
    expect(await store.get('stale')).toMatchObject({ messages: [], eventSeq: 0 });
    await store.close();
  });
});

describe('SQLite step commits', () => {
  it('a commit with a stale lease writes no message and no event row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-rt-'));
    const path = join(dir, 'sessions.db');
    const store = new SqliteSessionStore({ path });
    try {
      await store.create(state('stale'));
      const stale = await staleLease(store, 'stale');
      await expect(store.update('stale', stalePatch(), stale)).rejects.toMatchObject({
        code: 'SESSION_ALREADY_RUNNING',
      });
      const db = new Database(path, { readonly: true });
      const counts = db
        .prepare(
          `SELECT (SELECT count(*) FROM muster_messages) AS m, (SELECT count(*) FROM muster_events) AS e`,
        )
        .get();
      db.close();
      expect(counts).toEqual({ m: 0, e: 0 });
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
