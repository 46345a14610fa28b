/**
 * Regressions found in review of the event log (SPEC 10, 15.2), on the memory store, a real
 * SQLite file and a real PostgreSQL schema: the store hands out `seq` in the commit, so a
 * decision made while the run parks, or a commit retried after one that was applied, never
 * takes a number twice; a logged event is published only once its commit succeeded.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, scriptedModel, tool } from '../../src/index.js';
import type {
  AgentEvent,
  SessionPatch,
  SessionStore,
  SessionWriteOptions,
  Usage,
} from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { databaseUrl } from '../support/database.js';
import { sessionState } from '../support/session-state.js';

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

/** What a test does around a step commit of the store it runs on. */
interface Hooks {
  before?: (id: string, patch: SessionPatch) => Promise<void>;
  after?: (patch: SessionPatch) => void;
}

class HookedMemory extends MemorySessionStore {
  hooks: Hooks = {};
  override async update(id: string, patch: SessionPatch, options?: SessionWriteOptions) {
    await this.hooks.before?.(id, patch);
    const result = await super.update(id, patch, options);
    this.hooks.after?.(patch);
    return result;
  }
}

class HookedSqlite extends SqliteSessionStore {
  hooks: Hooks = {};
  tookSteering = false;
  override async takeSteering(...args: Parameters<SqliteSessionStore['takeSteering']>) {
    const texts = await super.takeSteering(...args);
    if (texts.length > 0) this.tookSteering = true;
    return texts;
  }
  override async update(id: string, patch: SessionPatch, options?: SessionWriteOptions) {
    await this.hooks.before?.(id, patch);
    const result = await super.update(id, patch, options);
    this.hooks.after?.(patch);
    return result;
  }
}

class HookedPostgres extends PostgresSessionStore {
  hooks: Hooks = {};
  override async update(id: string, patch: SessionPatch, options?: SessionWriteOptions) {
    await this.hooks.before?.(id, patch);
    const result = await super.update(id, patch, options);
    this.hooks.after?.(patch);
    return result;
  }
}

interface Backend {
  store: SessionStore & { hooks: Hooks };
  /** Whether the row of `seq` is in the log now (SQLite: read at once, from another connection). */
  logged?: (sessionId: string, seq: number) => boolean;
  close(): Promise<void>;
}

const backends: [string, () => Backend][] = [
  ['memory', () => ({ store: new HookedMemory(), close: async () => {} })],
  [
    'SQLite',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'muster-review-'));
      dirs.push(dir);
      const path = join(dir, 'sessions.db');
      const store = new HookedSqlite({ path });
      let reader: Database.Database | undefined;
      return {
        store,
        logged: (sessionId, seq) => {
          reader ??= new Database(path, { readonly: true });
          return (
            reader
              .prepare('SELECT 1 FROM muster_events WHERE session_id = ? AND seq = ?')
              .get(sessionId, seq) !== undefined
          );
        },
        close: async () => {
          reader?.close();
          store.close();
        },
      };
    },
  ],
  ...(url
    ? ([
        [
          'PostgreSQL',
          () => {
            const schema = `muster_review_${randomBytes(5).toString('hex')}`;
            schemas.push(schema);
            const store = new HookedPostgres({ connectionString: url, schema });
            return { store, close: () => store.close() };
          },
        ],
      ] as [string, () => Backend][])
    : []),
];

const pay = tool({
  name: 'pay',
  description: 'Pays.',
  input: z.object({ amount: z.number() }),
  execute: ({ amount }) => `paid ${amount}`,
});
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

async function logOf(store: SessionStore, sessionId: string) {
  const log = await store.readEvents!(sessionId, { afterSeq: 0 });
  return log.map((e) => ({ seq: e.seq, type: e.type, body: JSON.parse(e.json) as AgentEvent }));
}

describe.each(backends)('event log review (%s)', (_name, open) => {
  it('review-1: a decision made between a wait and the park commit takes its own seq; the run parks', async () => {
    const backend = open();
    const { store } = backend;
    const decider = createAgent({ sessionStore: store });
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'pay', arguments: { amount: 7 } }] }]),
      tools: [pay],
      sessionStore: store,
      policy: { park: true },
    });
    try {
      // the wait is stored; before the park commit, another host decides it
      store.hooks.before = async (id, patch) => {
        if (patch.status !== 'parked') return;
        const { waits } = await store.waits!.list({ sessionId: id });
        for (const w of waits)
          await decider.decide(id, w.id, { decision: 'allow', reason: 'fast' });
      };
      const events = await collect(agent.run({ input: 'go', sessionId: 'r1', stream: false }));
      expect(events.at(-1)).toMatchObject({ type: 'session.parked' });
      expect((await store.get('r1'))?.status).toBe('parked');
      const log = await logOf(store, 'r1');
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
      expect(log.map((e) => e.body.seq)).toEqual(log.map((e) => e.seq));
      expect(log.filter((e) => e.type === 'wait.decided')).toHaveLength(1);
      expect(log.filter((e) => e.type === 'wait.created')).toHaveLength(1);
      // what the run published carries the numbers the store gave
      const logged = events.filter((e) => e.type !== 'model.delta');
      const bySeq = new Map(log.map((e) => [e.seq, e.type]));
      for (const e of logged) expect(bySeq.get(e.seq!)).toBe(e.type);
    } finally {
      await agent.close();
      await decider.close();
      await backend.close();
    }
  });

  it('the commit that opens a run carries session.started: a one-turn run commits no events alone', async () => {
    const backend = open();
    const { store } = backend;
    const patches: SessionPatch[] = [];
    store.hooks.after = (patch) => void patches.push(patch);
    const agent = createAgent({ model: scriptedModel([{ text: 'ok' }]), sessionStore: store });
    try {
      const events = await collect(agent.run({ input: 'go', sessionId: 'o1', stream: false }));
      expect(events.map((e) => e.type)).toEqual([
        'session.started',
        'model.completed',
        'session.completed',
      ]);
      const opening = patches.find((p) => p.appendMessages?.some((m) => m.role === 'user'));
      expect(opening?.appendEvents?.map((e) => e.type)).toEqual(['session.started']);
      // no commit carried nothing but events (a flush of their own)
      const only = (p: SessionPatch) =>
        Object.entries(p).every(([k, v]) => k === 'appendEvents' || v === undefined);
      expect(patches.filter(only)).toEqual([]);
      const log = await logOf(store, 'o1');
      expect(log[0]).toMatchObject({ seq: 1, type: 'session.started' });
      expect(events[0]).toMatchObject({ type: 'session.started', seq: 1 });
    } finally {
      await agent.close();
      await backend.close();
    }
  });

  it('a run whose opening commit fails reports only its failure, and logs nothing', async () => {
    const backend = open();
    const { store } = backend;
    store.hooks.before = async (_id, patch) => {
      if (patch.appendMessages?.some((m) => m.role === 'user'))
        throw new Error('the store went away');
    };
    const agent = createAgent({ model: scriptedModel([{ text: 'ok' }]), sessionStore: store });
    try {
      const events: AgentEvent[] = [];
      await expect(
        (async () => {
          for await (const ev of agent.run({ input: 'go', sessionId: 'o2', stream: false }))
            events.push(ev);
        })(),
      ).rejects.toMatchObject({ code: 'SESSION_STORE_FAILED' });
      expect(events.map((e) => e.type)).toEqual(['session.failed']);
      expect(await logOf(store, 'o2')).toEqual([]);
    } finally {
      await agent.close();
      await backend.close();
    }
  });

  it('review-1: a commit retried after one that was applied but reported failed stores new numbers', async () => {
    const backend = open();
    const { store } = backend;
    let failOnce = true;
    let flushed: () => void = () => {};
    const flush = new Promise<void>((resolve) => (flushed = resolve));
    // a commit of the log's own (nothing but events: the tool's events while it runs) is
    // applied, then reported as failed; its events ride the next commit again
    store.hooks.after = (patch) => {
      const onlyEvents = Object.entries(patch).every(
        ([k, v]) => v === undefined || (k === 'appendEvents' && (v as unknown[]).length > 0),
      );
      if (!onlyEvents || patch.appendEvents === undefined) return;
      flushed();
      if (failOnce) {
        failOnce = false;
        throw new Error('connection reset after the commit');
      }
    };
    // the tool runs until the log has committed its events on its own
    const slow = tool({
      name: 'slow',
      description: 'Waits for the flush.',
      input: z.object({}),
      execute: async () => {
        await flush;
        return 'done';
      },
    });
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'ok' }]),
      tools: [slow],
      sessionStore: store,
      policy: { allow: ['slow'] },
    });
    try {
      const events = await collect(agent.run({ input: 'go', sessionId: 'r1b', stream: false }));
      expect(failOnce).toBe(false);
      expect(events.at(-1)?.type).toBe('session.completed');
      const log = await logOf(store, 'r1b');
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
      expect(log.map((e) => e.body.seq)).toEqual(log.map((e) => e.seq));
      // what the run published carries the numbers of the commit that was reported
      const bySeq = new Map(log.map((e) => [e.seq, e.type]));
      for (const e of events) expect(bySeq.get(e.seq!)).toBe(e.type);
      expect((await store.get('r1b'))?.status).toBe('completed');
      expect(log.at(-1)?.type).toBe('session.completed');
    } finally {
      await agent.close();
      await backend.close();
    }
  });

  it('a turn whose commit fails publishes no model.completed and counts no usage', async () => {
    const backend = open();
    const { store } = backend;
    store.hooks.before = async (_id, patch) => {
      if (patch.appendMessages?.some((m) => m.role === 'assistant'))
        throw new Error('the store went away');
    };
    const agent = createAgent({
      model: scriptedModel([
        { text: 'ok', usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 } },
      ]),
      sessionStore: store,
    });
    try {
      const events: AgentEvent[] = [];
      await expect(
        (async () => {
          for await (const ev of agent.run({ input: 'go', sessionId: 'r1c', stream: false }))
            events.push(ev);
        })(),
      ).rejects.toMatchObject({ code: 'SESSION_STORE_FAILED' });
      expect(events.map((e) => e.type)).toEqual(['session.started', 'session.failed']);
      expect(agent.usage.totalTokens).toBe(0);
      expect((await logOf(store, 'r1c')).map((e) => e.type)).not.toContain('model.completed');
    } finally {
      await agent.close();
      await backend.close();
    }
  });

  it('review-2: a logged event reaches the iterator and onEvent only once its commit succeeded', async () => {
    const backend = open();
    const { store } = backend;
    const seen: { seq: number; type: string; inLog: boolean | undefined }[] = [];
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] },
        { text: 'ok' },
      ]),
      tools: [echo],
      sessionStore: store,
      policy: { allow: ['echo'] },
      observability: {
        onEvent: (e) => {
          if (e.seq === undefined || e.type === 'model.delta') return;
          seen.push({ seq: e.seq, type: e.type, inLog: backend.logged?.('r2', e.seq) });
        },
      },
    });
    try {
      const events = await collect(agent.run({ input: 'go', sessionId: 'r2', stream: true }));
      const log = await logOf(store, 'r2');
      // every numbered event the run published is the log's event of that number
      const bySeq = new Map(log.map((e) => [e.seq, e.type]));
      for (const e of events.filter((x) => x.type !== 'model.delta'))
        expect(bySeq.get(e.seq!)).toBe(e.type);
      expect(events.filter((x) => x.type !== 'model.delta')).toHaveLength(log.length);
      expect(seen.length).toBe(log.length);
      // read at once from another connection, when onEvent saw it: committed already
      if (backend.logged) expect(seen.filter((s) => !s.inLog)).toEqual([]);
    } finally {
      await agent.close();
      await backend.close();
    }
  });

  it('review-2: when the final commit fails, session.failed is published without a seq', async () => {
    const backend = open();
    const { store } = backend;
    store.hooks.before = async (_id, patch) => {
      if (patch.status === 'completed' || patch.status === 'failed')
        throw new Error('the store went away');
    };
    const agent = createAgent({
      model: scriptedModel([{ text: 'ok' }]),
      sessionStore: store,
      observability: { onError: () => {} },
    });
    try {
      const events: AgentEvent[] = [];
      await expect(
        (async () => {
          for await (const e of agent.run({ input: 'go', sessionId: 'r2b', stream: false }))
            events.push(e);
        })(),
      ).rejects.toMatchObject({ code: 'SESSION_STORE_FAILED' });
      const failed = events.at(-1);
      expect(failed?.type).toBe('session.failed');
      expect(failed?.seq).toBeUndefined();
      const log = await logOf(store, 'r2b');
      expect(log.map((e) => e.type)).not.toContain('session.failed');
      // whatever the run published with a number is in the log
      const bySeq = new Map(log.map((e) => [e.seq, e.type]));
      for (const e of events.filter((x) => x.seq !== undefined))
        expect(bySeq.get(e.seq!)).toBe(e.type);
    } finally {
      await agent.close();
      await backend.close();
    }
  });

  // PostgreSQL only: the other stores add usage in JavaScript (defined there only, not skipped)
  if (_name === 'PostgreSQL')
    it('review-6: a step commit sums only the known usage keys, fractional ones too', async () => {
      const backend = open();
      const { store } = backend;
      try {
        await store.create(
          sessionState('r6', { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }),
        );
        const odd = { inputTokens: 0.5, outputTokens: 1, totalTokens: 1.5, bogus: 2.25 };
        await store.update('r6', { addUsage: odd as Usage });
        await store.update('r6', {
          addUsage: { inputTokens: 1, outputTokens: 0, totalTokens: 1, reasoningTokens: 4 },
        });
        expect((await store.get('r6'))?.usage).toEqual({
          inputTokens: 2.5,
          outputTokens: 3,
          totalTokens: 5.5,
          reasoningTokens: 4,
        });
      } finally {
        await backend.close();
      }
    });
});

describe('watch ends with the run it attached to (review-3)', () => {
  it('review-3: a watch attached to a follow-up run with afterSeq 0 does not end on the previous run', async () => {
    const store = new HookedMemory();
    const agent = createAgent({
      model: scriptedModel([{ text: 'one' }, { text: 'two' }]),
      sessionStore: store,
    });
    try {
      await collect(agent.run({ input: 'first', sessionId: 'r3', stream: false }));
      const seen: AgentEvent[] = [];
      let watching: Promise<void> | undefined;
      // the second run has committed `running` and nothing of its own is logged yet
      store.hooks.before = async (_id, patch) => {
        if (watching || !patch.appendMessages?.some((m) => JSON.stringify(m).includes('second')))
          return;
        const it = agent.sessions.watch('r3', { afterSeq: 0 })[Symbol.asyncIterator]();
        const first = await it.next();
        if (!first.done) seen.push(first.value as AgentEvent);
        watching = (async () => {
          for (let r = await it.next(); !r.done; r = await it.next())
            seen.push(r.value as AgentEvent);
        })();
      };
      const second = await collect(agent.run({ input: 'second', sessionId: 'r3', stream: false }));
      await watching;
      expect(second.at(-1)).toMatchObject({ type: 'session.completed', content: 'two' });
      expect(seen.at(-1)).toMatchObject({ type: 'session.completed', seq: second.at(-1)!.seq });
      expect(seen.filter((e) => e.type === 'session.completed')).toHaveLength(2);
    } finally {
      await agent.close();
    }
  });

  it('review-3: a watch of a parked session whose last logged event is wait.decided ends', async () => {
    const store = new HookedMemory();
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'pay', arguments: { amount: 7 } }] }]),
      tools: [pay],
      sessionStore: store,
      policy: { park: true },
    });
    try {
      const events = await collect(agent.run({ input: 'go', sessionId: 'r3b', stream: false }));
      const created = events.find((e) => e.type === 'wait.created');
      if (created?.type !== 'wait.created') throw new Error('no wait.created');
      await agent.decide('r3b', created.wait.id, { decision: 'allow', reason: 'ok' });
      const log = await logOf(store, 'r3b');
      expect(log.at(-1)?.type).toBe('wait.decided');
      const seen: AgentEvent[] = [];
      for await (const e of agent.sessions.watch('r3b')) seen.push(e as AgentEvent);
      expect(seen.map((e) => e.seq)).toEqual(log.map((e) => e.seq));
    } finally {
      await agent.close();
    }
  }, 10_000);
});

describe('watch of a run that died (review-3)', () => {
  it('review-3: a watch of a running session with no live lease ends after what was logged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-review-dead-'));
    dirs.push(dir);
    const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
    const agent = createAgent({ model: scriptedModel([{ text: 'one' }]), sessionStore: store });
    try {
      await collect(agent.run({ input: 'first', sessionId: 'r3c', stream: false }));
      // a second run's process died after it had marked the session running; its lease is gone
      await store.update('r3c', {
        status: 'running',
        appendEvents: [
          { type: 'session.started', json: JSON.stringify({ type: 'session.started' }) },
        ],
      });
      expect(await store.leased('r3c')).toBe(false);
      const seen: AgentEvent[] = [];
      for await (const e of agent.sessions.watch('r3c')) seen.push(e as AgentEvent);
      expect(seen.map((e) => e.type)).toContain('session.completed');
      expect(seen.at(-1)?.type).toBe('session.started');
    } finally {
      await agent.close();
      store.close();
    }
  }, 10_000);
});

describe.skipIf(!url)('PostgreSQL NOTIFY (review-4, review-7)', () => {
  const state = (id: string) => sessionState(id);
  const entry = (type: string) => ({ type, json: JSON.stringify({ type }) });

  it('review-4: a watcher whose LISTEN connection was killed listens again and hears later commits', async () => {
    const schema = `muster_review_l_${randomBytes(5).toString('hex')}`;
    schemas.push(schema);
    const store = new PostgresSessionStore({ connectionString: url!, schema });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const agent = createAgent({ sessionStore: store });
    const listeners = async () =>
      (
        await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE query = $1 AND state = 'idle'`,
          [`LISTEN "muster_events.${schema}"`],
        )
      ).rows.map((r) => r.pid);
    try {
      await store.create(state('l1'));
      const lease = await store.acquire('l1', 'writer', 60_000);
      const write = { lease: { token: lease!.token } };
      await store.update('l1', { appendEvents: [entry('session.started')] }, write);
      const it = agent.sessions.watch('l1')[Symbol.asyncIterator]();
      expect((await it.next()).value).toMatchObject({ seq: 1 });
      let first = await listeners();
      while (first.length === 0) first = await listeners();
      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [first]);
      // a new connection listens (the killed one never comes back)
      let again = (await listeners()).filter((pid) => !first.includes(pid));
      while (again.length === 0) again = (await listeners()).filter((pid) => !first.includes(pid));
      await store.update('l1', { appendEvents: [entry('tool.called')] }, write);
      expect((await it.next()).value).toMatchObject({ seq: 2, type: 'tool.called' });
      await it.return?.();
    } finally {
      await agent.close();
      await store.close();
      await admin.end();
    }
  }, 20_000);

  it('review-7: a schema name too long for a channel name still commits and notifies', async () => {
    const schema = `muster_review_long_${randomBytes(20).toString('hex')}`.slice(0, 60);
    schemas.push(schema);
    const store = new PostgresSessionStore({ connectionString: url!, schema });
    const agent = createAgent({ model: scriptedModel([{ text: 'ok' }]), sessionStore: store });
    try {
      const events = await collect(agent.run({ input: 'go', sessionId: 'l7', stream: false }));
      expect(events.at(-1)).toMatchObject({ type: 'session.completed', content: 'ok' });
      const log = await logOf(store, 'l7');
      expect(log.at(-1)?.type).toBe('session.completed');
      // a watcher of the next run hears its commits live
      const seen: AgentEvent[] = [];
      const more = scriptedModel([{ text: 'again' }]);
      const second = createAgent({ model: more, sessionStore: store });
      const watching = (async () => {
        for await (const e of agent.sessions.watch('l7', {
          afterSeq: log.at(-1)!.seq,
          follow: true,
        }))
          if (seen.push(e as AgentEvent) && e.type === 'session.completed') return;
      })();
      await collect(second.run({ input: 'again', sessionId: 'l7', stream: false }));
      await watching;
      expect(seen.at(-1)).toMatchObject({ type: 'session.completed', content: 'again' });
      await second.close();
    } finally {
      await agent.close();
      await store.close();
    }
  });
});

describe('what the log keeps (review-9)', () => {
  it('review-9: a host that changes an event it was handed does not change a durable log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-review-mutate-'));
    dirs.push(dir);
    const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
    const agent = createAgent({
      model: scriptedModel([
        { text: 'ok', usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } },
      ]),
      sessionStore: store,
      observability: {
        onEvent: (e) => {
          if (e.type === 'session.completed')
            (e.usage as { inputTokens: number }).inputTokens = 999;
        },
      },
    });
    try {
      const seen = await collect(agent.run({ input: 'go', sessionId: 'r9', stream: false }));
      // the host's change is on the object it was handed
      expect(seen.find((e) => e.type === 'session.completed')).toMatchObject({
        usage: { inputTokens: 999 },
      });
      const log = await logOf(store, 'r9');
      const completed = log.find((e) => e.type === 'session.completed')!.body;
      expect(completed).toMatchObject({ usage: { inputTokens: 3 } });
    } finally {
      await agent.close();
      store.close();
    }
  });

  it("review-9: the memory store writes an event's text when it is read (events are read-only)", async () => {
    const store = new MemorySessionStore();
    const agent = createAgent({
      model: scriptedModel([
        { text: 'ok', usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } },
      ]),
      sessionStore: store,
    });
    try {
      const seen = await collect(agent.run({ input: 'go', sessionId: 'r9m', stream: false }));
      const log = await logOf(store, 'r9m');
      // what the run published, numbered, is what the log reads back
      expect(log.map((e) => e.body)).toEqual(
        seen.map((e) => JSON.parse(JSON.stringify(e)) as AgentEvent),
      );
      expect(log.map((e) => e.seq)).toEqual(seen.map((e) => e.seq));
      // the text is made once: a second read gives the same strings
      const again = await store.readEvents('r9m', { afterSeq: 0 });
      expect(again.map((e) => e.json)).toEqual(
        (await store.readEvents('r9m', { afterSeq: 0 })).map((e) => e.json),
      );
      expect(again.every((e) => e.json.startsWith(`{"seq":${e.seq},`))).toBe(true);
    } finally {
      await agent.close();
    }
  });

  it('review-9: a logged wait.decided leaves an elicitation answer out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-review-elicit-'));
    dirs.push(dir);
    const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
    const agent = createAgent({ sessionStore: store });
    try {
      const now = new Date().toISOString();
      await store.create(sessionState('r9b', { status: 'parked', iteration: 1 }));
      await store.waits.put({
        id: 'wait_r9b',
        sessionId: 'r9b',
        runId: 'run_r9b',
        kind: 'elicitation',
        callId: 'call_1',
        toolName: 'login',
        message: 'Your code?',
        requestedSchema: { type: 'object', properties: { code: { type: 'string' } } },
        createdAt: now,
        fingerprint: 'f',
        status: 'pending',
      });
      await agent.decide('r9b', 'wait_r9b', { action: 'accept', content: { code: 'c0de-9731' } });
      const log = await store.readEvents('r9b', { afterSeq: 0 });
      expect(log.map((e) => e.type)).toEqual(['wait.decided']);
      expect(log[0]!.json).not.toContain('c0de-9731');
      expect(JSON.parse(log[0]!.json)).toMatchObject({ decision: { action: 'accept' } });
    } finally {
      await agent.close();
      store.close();
    }
  });
});

describe('steering (review-5)', () => {
  it('review-5: a steering message taken into the transcript is logged with the take, even if nothing commits after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-review-steer-'));
    dirs.push(dir);
    const store = new HookedSqlite({ path: join(dir, 'sessions.db') });
    const agent = createAgent({
      model: scriptedModel([{ text: 'one' }, { text: 'two' }]),
      sessionStore: store,
      observability: { onError: () => {} },
    });
    try {
      await collect(agent.run({ input: 'first', sessionId: 'r5', stream: false }));
      await agent.steer('r5', 'turn left');
      // the process dies right after the take: no later commit reaches the store
      store.hooks.before = async () => {
        if (store.tookSteering) throw new Error('the process died');
      };
      await collect(agent.run({ input: 'second', sessionId: 'r5', stream: false })).catch(() => {});
      const state = await store.get('r5');
      expect(JSON.stringify(state?.messages)).toContain('turn left');
      const log = await logOf(store, 'r5');
      expect(log.filter((e) => e.type === 'steering.delivered').map((e) => e.body)).toMatchObject([
        { text: 'turn left' },
      ]);
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    } finally {
      await agent.close();
      store.close();
    }
  });
});
