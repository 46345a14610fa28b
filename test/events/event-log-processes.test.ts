/**
 * The event log across processes (SPEC 15.2), on a real SQLite file and a real PostgreSQL
 * schema: a watcher in another process is killed mid-run and restarted after the last seq it
 * printed, and misses nothing; a peer process with no run steers the running run (delivered
 * once, in the next model request), steers it while parked (delivered after resume), and
 * decides its wait, which the watcher sees.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { AgentEvent, SessionStore } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';

const FIXTURE = 'test/fixtures/session/event-log-peer.ts';
const url = databaseUrl();

interface Backend {
  readonly env: Record<string, string>;
  readonly store: SessionStore & { close(): unknown };
  cleanup(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'muster-events-'));
  const path = join(dir, 'sessions.db');
  return {
    env: { EL_STORE: 'sqlite', EL_DB: path },
    store: new SqliteSessionStore({ path }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresBackend(): Backend {
  const schema = `muster_events_${randomBytes(5).toString('hex')}`;
  return {
    env: { EL_STORE: 'postgres', EL_DB: url!, EL_SCHEMA: schema },
    store: new PostgresSessionStore({ connectionString: url!, schema }),
    cleanup: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    },
  };
}

/** The `ev <seq> <type>` lines a watcher printed, and a way to wait for one. */
function watchedLines(child: ChildRun) {
  const seen: { seq: number; type: string }[] = [];
  const waiters: { test: () => boolean; resolve: () => void }[] = [];
  let rest = '';
  child.child.stdout!.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop()!;
    for (const l of lines) {
      const m = /^ev (\d+) (\S+)$/.exec(l);
      if (m) seen.push({ seq: Number(m[1]), type: m[2]! });
    }
    for (const w of [...waiters])
      if (w.test()) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  });
  return {
    seen,
    until: (test: () => boolean) =>
      test()
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiters.push({ test, resolve })),
            child.exited.then(() => {
              throw new Error(`the watcher exited: ${child.stderr()}`);
            }),
          ]),
  };
}

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

const userTexts = (request: { messages: readonly { role: string; content: unknown }[] }) =>
  request.messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));

async function scenario(backend: Backend): Promise<void> {
  const sessionId = 'watched';
  let entered!: () => void;
  const inGate = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  const gateOpen = new Promise<void>((r) => (release = r));
  const gate = tool({
    name: 'gate',
    description: 'Waits for the test.',
    input: z.object({}),
    execute: async () => {
      entered();
      await gateOpen;
      return 'open';
    },
  });
  const pay = tool({
    name: 'pay',
    description: 'Pays.',
    input: z.object({ amount: z.number() }),
    execute: ({ amount }) => `paid ${amount}`,
  });
  const model = scriptedModel([
    { toolCalls: [{ name: 'gate', arguments: {} }] },
    { toolCalls: [{ name: 'pay', arguments: { amount: 7 } }] },
    { text: 'done' },
  ]);
  const agent = createAgent({
    model,
    tools: [gate, pay],
    sessionStore: backend.store,
    policy: { allow: ['gate'], park: true },
  });
  const peer = startChild(FIXTURE, backend.env, { args: ['peer'], stdin: true });
  const children: ChildRun[] = [peer];
  const ask = async (command: string, answer: string) => {
    const done = peer.next(answer);
    peer.child.stdin!.write(`${command}\n`);
    await done;
  };
  try {
    const running = collect(agent.run({ input: 'go', sessionId, stream: false }));
    await inGate;
    // a watcher in another process, killed mid-run
    const w1 = startChild(FIXTURE, backend.env, { args: ['watch', sessionId, '0'] });
    children.push(w1);
    const first = watchedLines(w1);
    await first.until(() => first.seen.length >= 2);
    w1.child.kill('SIGKILL');
    await w1.exited;
    const lastSeen = first.seen.at(-1)!.seq;

    // a process with no run steers the running run
    await peer.line('ready');
    await ask(`steer ${sessionId} steer-one`, 'steered');
    release();
    const parkedRun = await running;
    expect(parkedRun.at(-1)).toMatchObject({ type: 'session.parked' });
    expect(parkedRun.filter((e) => e.type === 'steering.delivered')).toMatchObject([
      { text: 'steer-one' },
    ]);
    expect(userTexts(model.requests[1]!).at(-1)).toContain('steer-one');
    expect(userTexts(model.requests[0]!).join()).not.toContain('steer-one');

    // restarted after the last seq it printed; the peer steers the parked session and decides
    const w2 = startChild(FIXTURE, backend.env, { args: ['watch', sessionId, String(lastSeen)] });
    children.push(w2);
    const second = watchedLines(w2);
    await second.until(() => second.seen.some((e) => e.type === 'session.parked'));
    await ask(`steer ${sessionId} steer-two`, 'steered');
    const wait = parkedRun.find((e) => e.type === 'wait.created');
    if (wait?.type !== 'wait.created') throw new Error('no wait.created');
    await ask(`decide ${sessionId} ${wait.wait.id}`, 'decided');
    await second.until(() => second.seen.some((e) => e.type === 'wait.decided'));

    const resumed = await collect(agent.resume(sessionId, { stream: false }));
    expect(resumed.at(-1)).toMatchObject({ type: 'session.completed', content: 'done' });
    expect(resumed.filter((e) => e.type === 'steering.delivered')).toMatchObject([
      { text: 'steer-two' },
    ]);
    expect(userTexts(model.requests[2]!).at(-1)).toContain('steer-two');
    const last = resumed.at(-1)!.seq!;
    await second.until(() => second.seen.some((e) => e.seq === last));

    // the union of what both watchers saw: every logged event once, in order, no holes
    const log = await backend.store.readEvents!(sessionId, { afterSeq: 0 });
    const union = [...first.seen, ...second.seen];
    expect(union.map((e) => e.seq)).toEqual(log.map((e) => e.seq));
    expect(union.map((e) => e.type)).toEqual(log.map((e) => e.type));
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    // besides the run's own events, the log holds the decision the peer logged
    const ran = new Set([...parkedRun, ...resumed].map((e) => e.seq));
    expect(log.filter((e) => !ran.has(e.seq)).map((e) => e.type)).toEqual(['wait.decided']);
    expect(second.seen.map((e) => e.type)).toEqual(
      expect.arrayContaining(['wait.created', 'wait.decided', 'session.completed']),
    );
    expect(log.filter((e) => e.type === 'steering.delivered')).toHaveLength(2);
  } finally {
    peer.child.stdin!.end();
    for (const c of children) c.child.kill('SIGKILL');
    await agent.close();
    await backend.store.close();
    await backend.cleanup();
  }
}

describe('the event log across processes', () => {
  it('SQLite: a restarted watcher misses nothing; steering and decisions from a peer process', async () => {
    await scenario(sqliteBackend());
  }, 60_000);

  it.skipIf(!url)(
    'PostgreSQL: a restarted watcher misses nothing; steering and decisions from a peer process',
    async () => {
      await scenario(postgresBackend());
    },
    60_000,
  );
});
