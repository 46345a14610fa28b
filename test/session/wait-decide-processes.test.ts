import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { startChild } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';
import { pendingWait } from './wait-contract.js';

// SPEC 15.1: any process may decide a wait, and of concurrent decisions exactly one wins,
// also when they come from different processes on the same file or database.

const FIXTURE = 'test/fixtures/session/wait-decider.ts';
const url = databaseUrl();

interface Backend {
  readonly env: Record<string, string>;
  store(): SessionStore & { close(): unknown };
  cleanup(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'muster-decide-'));
  const path = join(dir, 'sessions.db');
  return {
    env: { DECIDE_STORE: 'sqlite', DECIDE_DB: path },
    store: () => new SqliteSessionStore({ path }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresBackend(): Backend {
  const schema = `muster_decide_${randomBytes(5).toString('hex')}`;
  return {
    env: { DECIDE_STORE: 'postgres', DECIDE_DB: url!, DECIDE_SCHEMA: schema },
    store: () => new PostgresSessionStore({ connectionString: url!, schema }),
    cleanup: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    },
  };
}

const backends: [string, () => Backend][] = [['SQLite', sqliteBackend]];
if (url) backends.push(['PostgreSQL', postgresBackend]);
const made: Backend[] = [];
afterAll(async () => {
  for (const b of made) await b.cleanup();
});

describe.each(backends)('deciding one wait from two processes on %s', (_name, makeBackend) => {
  it('two processes firing 5 concurrent decisions each: exactly one wins in total', async () => {
    const b = makeBackend();
    made.push(b);
    const store = b.store();
    try {
      await store.waits!.put(pendingWait('race', 'w'));
      const children = ['A', 'B'].map((name) =>
        startChild(
          FIXTURE,
          {
            ...b.env,
            DECIDE_SESSION: 'race',
            DECIDE_WAIT: 'w',
            DECIDE_NAME: name,
            DECIDE_COUNT: '5',
          },
          { stdin: true },
        ),
      );
      await Promise.all(children.map((c) => c.line('READY')));
      for (const c of children) c.child.stdin!.write('go\n');
      const results = await Promise.all(
        children.map(
          async (c) => JSON.parse(await c.line('RESULT')) as { won: string[]; lost: string[] },
        ),
      );
      for (const c of children) expect((await c.exited).code, c.stderr()).toBe(0);
      const won = results.flatMap((r) => r.won);
      expect(won).toHaveLength(1);
      expect(results.flatMap((r) => r.lost)).toEqual(
        Array.from({ length: 9 }, () => 'WAIT_NOT_FOUND:wait-decided'),
      );
      // the stored decision is the one the winner was told it made
      expect(await store.waits!.get('race', 'w')).toMatchObject({
        status: 'decided',
        decision: { decision: 'allow', reason: won[0] },
      });
    } finally {
      await store.close();
    }
  });
});
