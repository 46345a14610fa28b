import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionState, SessionStore, ToolResultMessage } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { startChild } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';

const FIXTURE = 'test/fixtures/session/crash-agent.ts';
const url = databaseUrl();

interface Backend {
  readonly env: Record<string, string>;
  store(): SessionStore & { close(): unknown };
  executions(): Promise<{ call_id: string; tool: string }[]>;
  cleanup(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'muster-crash-'));
  const path = join(dir, 'sessions.db');
  return {
    env: { CRASH_STORE: 'sqlite', CRASH_DB: path },
    store: () => new SqliteSessionStore({ path }),
    executions: async () => {
      const db = new Database(path, { readonly: true });
      const rows = db.prepare('SELECT call_id, tool FROM test_executions').all();
      db.close();
      return rows as { call_id: string; tool: string }[];
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresBackend(): Backend {
  const schema = `muster_crash_${randomBytes(5).toString('hex')}`;
  const query = async (sql: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };
  return {
    env: { CRASH_STORE: 'postgres', CRASH_DB: url!, CRASH_SCHEMA: schema },
    store: () => new PostgresSessionStore({ connectionString: url!, schema }),
    executions: async () => query(`SELECT call_id, tool FROM "${schema}".test_executions`),
    cleanup: async () => void (await query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)),
  };
}

const backends: [string, () => Backend][] = [['SQLite', sqliteBackend]];
if (url) backends.push(['PostgreSQL', postgresBackend]);
const made: Backend[] = [];
afterAll(async () => {
  for (const b of made) await b.cleanup();
});

async function snapshot(b: Backend, id: string): Promise<SessionState> {
  const store = b.store();
  try {
    return (await store.get(id))!;
  } finally {
    await store.close();
  }
}

describe.each(backends)('crash resume on %s', (_name, makeBackend) => {
  it.each(['model', 'tool'] as const)(
    'a process SIGKILLed during a %s step is resumed by another process: nothing lost, nothing run twice',
    async (hang) => {
      const b = makeBackend();
      made.push(b);
      const sessionId = `crash-${hang}`;
      const first = startChild(FIXTURE, {
        ...b.env,
        CRASH_SESSION: sessionId,
        CRASH_MODE: 'run',
        CRASH_HANG: hang,
      });
      await first.line('READY');
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      const before = await snapshot(b, sessionId);
      expect(before.status).toBe('running');

      const second = startChild(FIXTURE, {
        ...b.env,
        CRASH_SESSION: sessionId,
        CRASH_MODE: 'resume',
        CRASH_HANG: 'none',
      });
      const result = JSON.parse(await second.line('RESULT')) as {
        content?: string;
        error?: string;
      };
      await second.exited;
      expect(result).toEqual({ content: 'finished' });

      const after = await snapshot(b, sessionId);
      expect(after.status).toBe('completed');
      // every message committed before the kill is there, unchanged and in order
      expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
      const executions = (await b.executions()).map((e) => e.call_id).sort();
      expect(executions).toEqual(['call_count', 'call_slow']); // each exactly once
      const slowResult = after.messages.find(
        (m): m is ToolResultMessage => m.role === 'tool' && m.callId === 'call_slow',
      )!;
      if (hang === 'tool') {
        // the call was in flight at the kill: unknown for the model, never replayed
        expect(before.startedCalls).toContain('call_slow');
        expect(slowResult.content).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\]/);
      } else {
        expect(before.messages.at(-1)).toMatchObject({ role: 'tool', callId: 'call_count' });
        expect(slowResult.content).toBe('slow done');
      }
    },
  );
});
