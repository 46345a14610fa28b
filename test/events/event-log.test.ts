/**
 * The event log in one process (SPEC 10, 15.2): numbering, deltas, bounds and gaps (memory, a
 * real SQLite file, a real PostgreSQL schema), steering, decisions logged by `decide`, and the
 * typed refusals of `watch` and `steer`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, scriptedModel, tool } from '../../src/index.js';
import type { AgentEvent, SessionStore, WatchedEvent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { databaseUrl } from '../support/database.js';

const echo = tool({
  name: 'echo',
  description: 'Echoes its text.',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

async function watched(iterable: AsyncIterable<WatchedEvent>): Promise<WatchedEvent[]> {
  const out: WatchedEvent[] = [];
  for await (const ev of iterable) out.push(ev);
  return out;
}

const call = (text: string) => ({ toolCalls: [{ name: 'echo', arguments: { text } }] });

const url = databaseUrl();
const schemas: string[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (schemas.length === 0) return;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  for (const schema of schemas) await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

type BoundedStore = { store: SessionStore; close(): Promise<void> };

/** The stores that bound their log, each with at most 50 events per session. */
const bounded: [string, () => Promise<BoundedStore>][] = [
  [
    'memory',
    async () => ({
      store: new MemorySessionStore({ eventLogMaxPerSession: 50 }),
      close: async () => {},
    }),
  ],
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'muster-event-gap-'));
      dirs.push(dir);
      const store = new SqliteSessionStore({
        path: join(dir, 'sessions.db'),
        eventLogMaxPerSession: 50,
      });
      return { store, close: async () => store.close() };
    },
  ],
  ...(url
    ? ([
        [
          'PostgreSQL',
          async () => {
            const schema = `muster_event_gap_${randomBytes(5).toString('hex')}`;
            schemas.push(schema);
            const store = new PostgresSessionStore({
              connectionString: url,
              schema,
              eventLogMaxPerSession: 50,
            });
            return { store, close: () => store.close() };
          },
        ],
      ] as [string, () => Promise<BoundedStore>][])
    : []),
];

describe('the event log', () => {
  it('numbers logged events one by one across runs; the log holds them, a watcher reads them', async () => {
    const store = new MemorySessionStore();
    const model = scriptedModel([call('a'), { text: 'one' }, call('b'), { text: 'two' }]);
    const agent = createAgent({
      model,
      tools: [echo],
      sessionStore: store,
      policy: { allow: ['echo'] },
    });
    const first = await collect(agent.run({ input: 'go', sessionId: 's', stream: false }));
    const second = await collect(agent.run({ input: 'again', sessionId: 's', stream: false }));
    const seqs = [...first, ...second].map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const seen = await watched(agent.sessions.watch('s'));
    expect(seen.map((e) => e.seq)).toEqual(seqs);
    expect(seen.map((e) => e.type)).toEqual([...first, ...second].map((e) => e.type));
    // after the last seq of a session with no run going on: nothing, and the watch ends
    expect(await watched(agent.sessions.watch('s', { afterSeq: seqs.at(-1)! }))).toEqual([]);
    await agent.close();
  });

  it('deltas carry the last logged seq and a deltaIndex, and are logged only with eventLog all', async () => {
    for (const eventLog of ['default', 'all'] as const) {
      const store = new MemorySessionStore();
      const model = scriptedModel([call('x'), { text: 'three words here' }]);
      const agent = createAgent({
        model,
        tools: [echo],
        sessionStore: store,
        policy: { allow: ['echo'] },
        eventLog,
      });
      const events = await collect(agent.run({ input: 'go', sessionId: 'd', stream: true }));
      const deltas = events.filter((e) => e.type === 'model.delta');
      expect(deltas.length).toBeGreaterThan(2);
      const logged = await watched(agent.sessions.watch('d'));
      if (eventLog === 'default') {
        let last = 0;
        let index = 0;
        for (const e of events) {
          if (e.type !== 'model.delta') {
            last = e.seq!;
            index = 0;
            continue;
          }
          expect([e.seq, e.deltaIndex]).toEqual([last, index++]);
        }
        expect(logged.some((e) => e.type === 'model.delta')).toBe(false);
      } else {
        expect(logged.filter((e) => e.type === 'model.delta')).toHaveLength(deltas.length);
        expect(logged.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      }
      await agent.close();
    }
  });

  it.each(bounded)(
    '%s: with eventLogMaxPerSession 50, a watcher from 0 after 200 events gets one gap, then the last 50',
    async (_name, open) => {
      const { store, close } = await open();
      // 20 steps of 5 calls each: a few hundred cheap events in few commits
      const calls = (i: number) => ({
        toolCalls: Array.from({ length: 5 }, (_, j) => ({
          name: 'echo',
          arguments: { text: `t${i}.${j}` },
        })),
      });
      const turns = [...Array.from({ length: 20 }, (_, i) => calls(i)), { text: 'done' }];
      const agent = createAgent({
        model: scriptedModel(turns),
        tools: [echo],
        sessionStore: store,
        policy: { allow: ['echo'] },
        limits: { maxIterations: 100 },
      });
      try {
        const events = await collect(agent.run({ input: 'go', sessionId: 'g', stream: false }));
        expect(events.at(-1)).toMatchObject({ type: 'session.completed' });
        const last = events.at(-1)!.seq!;
        expect(last).toBeGreaterThanOrEqual(200);
        // the store holds the last 50 only
        const kept = await store.readEvents!('g', { afterSeq: 0 });
        expect(kept.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => last - 49 + i));
        const seen = await watched(agent.sessions.watch('g', { afterSeq: 0 }));
        expect(seen[0]).toEqual({
          type: 'gap',
          sessionId: 'g',
          fromSeq: 1,
          toSeq: last - 50,
          seq: last - 50,
        });
        expect(seen.filter((e) => e.type === 'gap')).toHaveLength(1);
        expect(seen.slice(1).map((e) => e.seq)).toEqual(
          Array.from({ length: 50 }, (_, i) => last - 49 + i),
        );
        expect(seen.slice(1).map((e) => e.type)).toEqual(events.slice(-50).map((e) => e.type));
      } finally {
        await agent.close();
        await close();
      }
    },
    30_000,
  );

  it('steering reaches the running run once, before its next model request', async () => {
    const store = new MemorySessionStore();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const box: { agent?: ReturnType<typeof createAgent> } = {};
    const slow = tool({
      name: 'slow',
      description: 'Waits.',
      input: z.object({}),
      execute: async () => {
        await box.agent!.steer('st', 'also mention the weather');
        release();
        await gate;
        return 'ok';
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: 'slow', arguments: {} }] },
      { text: 'done' },
    ]);
    const agent = createAgent({
      model,
      tools: [slow],
      sessionStore: store,
      policy: { allow: ['slow'] },
    });
    box.agent = agent;
    const events = await collect(agent.run({ input: 'go', sessionId: 'st', stream: false }));
    expect(events.filter((e) => e.type === 'steering.delivered')).toMatchObject([
      { text: 'also mention the weather' },
    ]);
    const second = model.requests[1]!.messages.at(-1);
    expect(second).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'also mention the weather' }],
    });
    expect((await store.get('st'))!.messages.filter((m) => m.role === 'user')).toHaveLength(2);
    await agent.close();
  });

  it('steering queued on an idle session starts its next run; with none queued the store is not asked', async () => {
    const store = new MemorySessionStore();
    let takes = 0;
    const take = store.takeSteering.bind(store);
    store.takeSteering = (...args: Parameters<typeof take>) => {
      takes++;
      return take(...args);
    };
    const model = scriptedModel([call('a'), { text: 'one' }, { text: 'two' }]);
    const agent = createAgent({
      model,
      tools: [echo],
      sessionStore: store,
      policy: { allow: ['echo'] },
    });
    try {
      await collect(agent.run({ input: 'go', sessionId: 'idle', stream: false }));
      // two step boundaries, and every commit said no steering waits
      expect(takes).toBe(0);
      await agent.steer('idle', 'and be brief');
      const events = await collect(agent.run({ input: 'again', sessionId: 'idle', stream: false }));
      expect(takes).toBe(1);
      expect(events.filter((e) => e.type === 'steering.delivered')).toMatchObject([
        { text: 'and be brief' },
      ]);
      expect(model.requests[2]!.messages.slice(-2)).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'again' }] },
        { role: 'user', content: [{ type: 'text', text: 'and be brief' }] },
      ]);
    } finally {
      await agent.close();
    }
  });

  it('with a store that keeps no log, seq is one counter of the process, shared by concurrent runs', async () => {
    const inner = new MemorySessionStore();
    // a host's store with no appendEvents or readEvents
    const bare: SessionStore = {
      create: (st) => inner.create(st),
      get: (id) => inner.get(id),
      update: (id, patch) => inner.update(id, patch),
      delete: (id) => inner.delete(id),
    };
    const agent = createAgent({
      model: scriptedModel([call('a'), { text: 'four words right here' }]),
      tools: [echo],
      sessionStore: bare,
      policy: { allow: ['echo'] },
    });
    const events = await collect(agent.run({ input: 'go', sessionId: 'p1', stream: true }));
    const logged = events.filter((e) => e.type !== 'model.delta');
    const first = logged[0]!.seq!;
    expect(first).toBeGreaterThan(0);
    expect(logged.map((e) => e.seq)).toEqual(logged.map((_, i) => first + i));
    let last = 0;
    let index = 0;
    const deltas = events.filter((e) => e.type === 'model.delta');
    expect(deltas.length).toBeGreaterThan(2);
    for (const e of events) {
      if (e.type !== 'model.delta') {
        last = e.seq!;
        index = 0;
      } else expect([e.seq, e.deltaIndex]).toEqual([last, index++]);
    }
    // the next run, of another session, goes on from the process's counter
    const twins = createAgent({
      model: scriptedModel([call('x'), { text: 'x' }, call('y'), { text: 'y' }]),
      tools: [echo],
      sessionStore: bare,
      policy: { allow: ['echo'] },
    });
    const [a, b] = await Promise.all([
      collect(twins.run({ input: 'go', sessionId: 'p2', stream: false })),
      collect(twins.run({ input: 'go', sessionId: 'p3', stream: false })),
    ]);
    const seqs = [...a, ...b].map((e) => e.seq!);
    expect(Math.min(...seqs)).toBe(logged.at(-1)!.seq! + 1);
    // one by one across both runs: none shared, none skipped
    expect([...seqs].sort((x, y) => x - y)).toEqual(
      seqs.map((_, i) => logged.at(-1)!.seq! + 1 + i),
    );
    for (const run of [a, b])
      expect(run.map((e) => e.seq!)).toEqual([...run.map((e) => e.seq!)].sort((x, y) => x - y));
    // nothing is durable: there is no log to watch
    expect(() => agent.sessions.watch('p1')).toThrow(/appendEvents or readEvents/);
    await agent.close();
    await twins.close();
  });

  it('refuses bad input with typed errors and writes nothing', async () => {
    const store = new MemorySessionStore();
    const agent = createAgent({ model: scriptedModel([{ text: 'hi' }]), sessionStore: store });
    await collect(agent.run({ input: 'go', sessionId: 'b', stream: false }));
    const before = await store.get('b');
    await expect(watched(agent.sessions.watch('nope'))).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
    await expect(agent.steer('nope', 'hello')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(() => agent.sessions.watch('b', { afterSeq: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
    expect(() => agent.sessions.watch('b', { afterSeq: 1.5 })).toThrow(/afterSeq/);
    await expect(agent.steer('b', '  ')).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
    expect(() => new MemorySessionStore({ eventLogMaxPerSession: 0 })).toThrow(
      /eventLogMaxPerSession/,
    );
    expect(await store.get('b')).toEqual(before);
    expect(await store.readEvents('b', { afterSeq: before!.eventSeq! })).toEqual([]);
    // a store of the host's with no log
    const bare: SessionStore = {
      create: (st) => store.create(st),
      get: (id) => store.get(id),
      update: (id, patch) => store.update(id, patch),
      delete: (id) => store.delete(id),
    };
    const plain = createAgent({ model: scriptedModel([]), sessionStore: bare });
    expect(() => plain.sessions.watch('b')).toThrow(/appendEvents or readEvents/);
    await agent.close();
    await plain.close();
  });
});
