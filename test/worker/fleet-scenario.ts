import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import { createAgent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import { fixturePath } from '../support/mcp-fixtures.js';
import type { WorkerDb } from './worker-db.js';

// The fleet of SPEC 15.5, shared by the default suite (100
// sessions, test/worker/worker-fleet.test.ts) and the fleet suite (1,000,
// test/fleet/fleet-thousand.test.ts): four worker processes on one database, three of them
// the worker fixture (an agent and createWorker in a script) and one the `muster worker`
// command itself, its MCP server from the user's mcp.json, its store from DATABASE_URL and its
// model a per-conversation scripted file. Each session calls the call-log server's counting
// tool once and answers.

const FIXTURE = 'test/fixtures/worker/worker-process.ts';
const MAIN = 'src/cli/main.ts';

/** The `id` the command's scripted turn passes to the counting tool, and its answer. */
export const CLI_TOOL_ID = 'muster-worker';
const CLI_ANSWER = 'done (muster worker)';

/** What {@link runFleet} measured, for the caller to print. */
export interface FleetResult {
  /** Sessions the `muster worker` process ran (its tool calls). */
  readonly byCommand: number;
  /** From the first enqueue to the last session completed, in ms. */
  readonly completedMs: number;
}

/** The processes of one fleet, and the folders its command uses. */
export interface Fleet {
  readonly children: ChildRun[];
  readonly dirs: string[];
  /** Kills what is left (SIGKILL) and removes the folders. */
  dispose(): void;
}

/** An empty fleet, to give {@link runFleet} and to dispose in `afterAll`. */
export function newFleet(): Fleet {
  const children: ChildRun[] = [];
  const dirs: string[] = [];
  return {
    children,
    dirs,
    dispose: () => {
      for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}

/**
 * `muster worker` as a process of its own: MUSTER_HOME with an mcp.json declaring the
 * call-log server, a `{ "perConversation": true }` turns file (call the counting tool, then
 * answer), the store from `DATABASE_URL`.
 */
function startCommand(db: WorkerDb, fleet: Fleet): ChildRun {
  const dir = mkdtempSync(join(tmpdir(), 'muster-fleet-cli-'));
  fleet.dirs.push(dir);
  const home = join(dir, 'home');
  mkdirSync(home);
  const server = {
    command: process.execPath,
    args: [fixturePath('call-log-server.mjs'), `--log=${db.log}`],
  };
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { tally: server } }));
  const turns = [
    {
      toolCalls: [{ name: 'mcp__tally__count', arguments: { id: CLI_TOOL_ID }, id: 'call_tally' }],
    },
    { text: CLI_ANSWER },
  ];
  writeFileSync(join(dir, 'turns.json'), JSON.stringify({ perConversation: true, turns }));
  const args = [
    '-C',
    dir,
    'worker',
    '--concurrency',
    '4',
    '--model',
    `scripted:${join(dir, 'turns.json')}`,
    '--allow',
    'mcp__tally__count',
    '--schema',
    db.schema,
    '--boss-schema',
    db.bossSchema,
  ];
  return startChild(MAIN, { MUSTER_HOME: home, MUSTER_STORE: '', DATABASE_URL: db.url }, { args });
}

/**
 * Starts the four processes, enqueues `sessions` runs from this process (which takes no job)
 * and checks that every session completes within `completeMs` with its call run exactly once
 * (server-side, with its idempotency key), no message lost or written outside a lease, every
 * job completed, a second start job a no-op, the command running some of the sessions, and
 * SIGTERM leaving every process exited 0 with no live lease.
 */
export async function runFleet(
  db: WorkerDb,
  fleet: Fleet,
  sessions: number,
  completeMs: number,
): Promise<FleetResult> {
  for (let i = 0; i < 3; i++)
    fleet.children.push(startChild(FIXTURE, db.env({ WORKER_CONCURRENCY: '4' })));
  const command = startCommand(db, fleet);
  fleet.children.push(command);
  const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
  const agent = createAgent({ sessionStore: store });
  const producer = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
  try {
    await Promise.all(fleet.children.slice(0, 3).map((c) => c.line('READY')));
    expect(await command.line('muster')).toMatch(/^worker: taking runs from queue 'muster'/);
    const ids = Array.from({ length: sessions }, (_, i) => `s-${i}`);
    const started = performance.now();
    const queued = await Promise.all(
      ids.map((id) => producer.enqueue({ input: `Count "${id}".`, sessionId: id })),
    );
    expect(queued.map((q) => q.sessionId)).toEqual(ids);

    const completed = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            `SELECT count(*) AS n FROM "${db.schema}".muster_sessions WHERE status = 'completed'`,
          )
        )[0]!.n,
      );
    await vi.waitFor(async () => expect(await completed()).toBe(sessions), {
      timeout: completeMs,
      interval: 200,
    });
    const completedMs = performance.now() - started;

    // each call ran exactly once, server-side, and carries its idempotency key
    // <sessionId>:<callId> (SPEC 15.5); its id names the process kind that made it
    const calls = db.calls().map((l) => l.split(' '));
    const keys = calls.map(([, , key]) => key ?? '');
    expect(keys.map((k) => k.slice(0, k.lastIndexOf(':'))).sort()).toEqual([...ids].sort());
    expect(
      keys.every((k) => k.endsWith(':call_tally')),
      keys.join('\n'),
    ).toBe(true);
    const byCommand = new Set(
      calls.filter(([id]) => id === CLI_TOOL_ID).map(([, , key]) => key!.split(':')[0]!),
    );
    for (const [id, , key] of calls)
      if (id !== CLI_TOOL_ID) expect(key, `${id} ${key}`).toBe(`${id}:call_tally`);
    // the command took part
    expect(byCommand.size, command.stderr()).toBeGreaterThan(0);

    // no message lost: user, the tool call, its result, the answer (the one of the process
    // that called the tool), as the store reads them back
    const states = await Promise.all(ids.map((id) => store.get(id)));
    for (const [i, state] of states.entries()) {
      const id = ids[i]!;
      expect(
        state?.messages.map((m) => m.role),
        id,
      ).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(state?.finalContent, id).toBe(byCommand.has(id) ? CLI_ANSWER : `done ${id}`);
    }
    const unfenced = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${db.schema}".muster_messages WHERE lease_token IS NULL`,
    );
    expect(unfenced[0]!.n).toBe('0');
    // a session is completed a moment before its job's `complete` lands
    await vi.waitFor(
      async () => {
        const jobs = await db.query<{ state: string; n: string }>(
          `SELECT state, count(*) AS n FROM "${db.bossSchema}".job WHERE name = 'muster' GROUP BY state`,
        );
        expect(jobs).toEqual([{ state: 'completed', n: String(sessions) }]);
      },
      { timeout: 10_000, interval: 50 },
    );

    // a start job for a session that has run is idempotent: nothing runs twice
    const again = await producer.enqueue({ input: 'Count "s-0".', sessionId: 's-0' });
    await vi.waitFor(
      async () => {
        const [job] = await db.query<{ state: string }>(
          `SELECT state FROM "${db.bossSchema}".job WHERE id = $1`,
          [again.jobId],
        );
        expect(job?.state).toBe('completed');
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(db.calls()).toHaveLength(sessions);
    expect((await store.get('s-0'))?.messages).toHaveLength(4);

    for (const c of fleet.children) c.child.kill('SIGTERM');
    for (const c of fleet.children) {
      if (c !== command) expect(await c.line('LEASES')).toBe('0');
      expect((await c.exited).code, c.stderr()).toBe(0);
    }
    const live = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${db.schema}".muster_leases WHERE owner IS NOT NULL AND expires_at > now()`,
    );
    expect(live[0]!.n).toBe('0');
    return { byCommand: byCommand.size, completedMs };
  } finally {
    await producer.stop();
    await agent.close();
    await store.close();
  }
}
