import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';
import { fixturePath } from '../support/mcp-fixtures.js';
import { workerDb } from '../worker/worker-db.js';

// `muster worker` (SPEC 15.5, docs/cli.md): the command as a real process, its store from the
// environment, a scripted model and a real MCP server from the user's mcp.json.

const MAIN = 'src/cli/main.ts';
const CANARY = 'canary-Pw-7f3d1';
const url = databaseUrl();

/** `url` with a password the server does not check (trust), which must never be printed. */
function withCanary(plain: string): string {
  const u = new URL(plain);
  u.password = CANARY;
  return u.toString();
}

/** A project folder: MUSTER_HOME with an mcp.json declaring the call-log server, a turns file. */
function project(log: string, turns: readonly object[]): { dir: string; home: string } {
  const dir = mkdtempSync(join(tmpdir(), 'muster-worker-cli-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  const server = {
    command: process.execPath,
    args: [fixturePath('call-log-server.mjs'), `--log=${log}`],
  };
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { tally: server } }));
  writeFileSync(join(dir, 'turns.json'), JSON.stringify(turns));
  return { dir, home };
}

/** Starts `muster <args>` as its own process in `dir`; the store only in `env`. */
function muster(args: readonly string[], dir: string, env: Record<string, string>): ChildRun {
  return startChild(
    MAIN,
    { MUSTER_STORE: '', DATABASE_URL: '', ...env },
    {
      args: ['-C', dir, ...args],
    },
  );
}

describe('muster worker: the store comes from the environment', () => {
  it('without MUSTER_STORE or DATABASE_URL it fails with INVALID_CONFIGURATION (exit 2) saying what to set', async () => {
    const run = muster(['worker', '--model', 'scripted:none.json'], tmpdir(), {});
    expect((await run.exited).code).toBe(2);
    expect(run.stderr()).toMatch(
      /error \[INVALID_CONFIGURATION\]: muster worker has no session store\. Set MUSTER_STORE \(or DATABASE_URL\)/,
    );
  });

  it('an invalid one is INVALID_CONFIGURATION naming the variable, without its value', async () => {
    const run = muster(['worker'], tmpdir(), {
      DATABASE_URL: `mysql://root:${CANARY}@db/app`,
    });
    expect((await run.exited).code).toBe(2);
    expect(run.stderr()).toMatch(/DATABASE_URL is not a postgres:\/\/user@host\/db URL/);
    expect(run.stderr()).not.toContain(CANARY);
  });

  it('takes no store URL on the command line', async () => {
    const run = muster(['worker', '--store', 'postgres://x@y/z'], tmpdir(), {});
    expect((await run.exited).code).toBe(2);
    expect(run.stderr()).toMatch(/unknown option '--store'/);
  });
});

describe.skipIf(!url)('muster worker on PostgreSQL', () => {
  const db = workerDb(url ?? '', 'cli');
  const children: ChildRun[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await db.drop();
  });

  it('takes queued runs (a real MCP tool each), prints one line and no secret, and SIGTERM drains: exit 0, no live lease', async () => {
    const SESSIONS = 3;
    // one run at a time, so the shared scripted turns go to one session after the other
    const turns = Array.from({ length: SESSIONS }, (_, i) => [
      { toolCalls: [{ name: 'mcp__tally__count', arguments: { id: `c-${i}` } }] },
      { text: `done ${i}` },
    ]).flat();
    const { dir, home } = project(db.log, turns);
    dirs.push(dir);
    const worker = muster(
      [
        'worker',
        '--concurrency',
        '1',
        '--model',
        `scripted:${join(dir, 'turns.json')}`,
        '--allow',
        'mcp__tally__count',
        '--schema',
        db.schema,
        '--boss-schema',
        db.bossSchema,
      ],
      dir,
      { MUSTER_HOME: home, MUSTER_STORE: withCanary(db.url) },
    );
    children.push(worker);
    expect(await worker.line('muster')).toMatch(
      /^worker: taking runs from queue 'muster' \(concurrency 1, pid \d+\)/,
    );

    const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    const agent = createAgent({ sessionStore: store });
    const producer = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
    try {
      const ids = Array.from({ length: SESSIONS }, (_, i) => `cli-${i}`);
      for (const id of ids) await producer.enqueue({ input: 'Count once.', sessionId: id });
      await vi.waitFor(
        async () => {
          const page = await store.list({ status: 'completed', limit: 100 });
          expect(page.sessions.map((s) => s.id).sort()).toEqual(ids);
        },
        { timeout: 30_000, interval: 200 },
      );
      for (const id of ids)
        expect((await store.get(id))?.messages.map((m) => m.role)).toEqual([
          'user',
          'assistant',
          'tool',
          'assistant',
        ]);
      // each call ran once, in the server the user's mcp.json declares
      expect(
        db
          .calls()
          .map((l) => l.split(' ')[0])
          .sort(),
      ).toEqual(['c-0', 'c-1', 'c-2']);

      worker.child.kill('SIGTERM');
      const exited = await worker.exited;
      expect(exited.code, worker.stderr()).toBe(0);
      const live = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${db.schema}".muster_leases WHERE owner IS NOT NULL AND expires_at > now()`,
      );
      expect(live[0]!.n).toBe('0');
      expect(worker.stderr()).toMatch(/Draining/);
      const printed = `${worker.stdout()}\n${worker.stderr()}`;
      expect(printed).not.toContain(CANARY);
      expect(worker.stdout().trim().split('\n')).toHaveLength(1);
    } finally {
      await producer.stop();
      await agent.close();
      await store.close();
    }
  }, 60_000);
});
