import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteSessionStore, SQLITE_SCHEMA_VERSION } from '../../src/session/sqlite.js';
import { describeStoreContract, newState } from './store-contract.js';
import { pendingWait } from './wait-contract.js';

function tempFile(): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'muster-sqlite-'));
  return {
    path: join(dir, 'sessions.db'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describeStoreContract(
  'SQLite (a real file)',
  async () => {
    const file = tempFile();
    const store = new SqliteSessionStore({ path: file.path });
    return {
      store,
      cleanup: async () => {
        store.close();
        file.remove();
      },
      reopen: async () => {
        const other = new SqliteSessionStore({ path: file.path });
        return { store: other, cleanup: async () => other.close() };
      },
    };
  },
  { durable: true },
);

describe('SqliteSessionStore', () => {
  it('uses one WAL file with a versioned schema, and reopening keeps everything', async () => {
    const file = tempFile();
    try {
      const store = new SqliteSessionStore({ path: file.path });
      await store.create(
        newState('kept', { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }),
      );
      store.close();
      const again = new SqliteSessionStore({ path: file.path });
      expect((await again.get('kept'))!.messages).toHaveLength(1);
      again.close();
      const db = new Database(file.path, { readonly: true });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      db.close();
    } finally {
      file.remove();
    }
  });

  it('a file of schema version 1 (before typed answers) gains final_output and keeps its sessions', async () => {
    const file = tempFile();
    try {
      const store = new SqliteSessionStore({ path: file.path });
      await store.create(newState('old', { status: 'completed', finalContent: 'done' }));
      store.close();
      // take the file back to what version 1 wrote
      const db = new Database(file.path);
      db.exec(
        'ALTER TABLE muster_sessions DROP COLUMN budget; ALTER TABLE muster_sessions DROP COLUMN principal; DROP TABLE muster_events; DROP TABLE muster_steering; ALTER TABLE muster_sessions DROP COLUMN event_seq; DROP TABLE muster_waits; ALTER TABLE muster_sessions DROP COLUMN final_output',
      );
      db.pragma('user_version = 1');
      db.close();
      const again = new SqliteSessionStore({ path: file.path });
      expect(await again.get('old')).toMatchObject({ status: 'completed', finalContent: 'done' });
      expect('finalOutput' in ((await again.get('old')) ?? {})).toBe(false);
      await again.update('old', { finalOutput: { value: { n: 1 } } });
      expect((await again.get('old'))?.finalOutput).toEqual({ n: 1 });
      again.close();
      const check = new Database(file.path, { readonly: true });
      expect(check.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      check.close();
    } finally {
      file.remove();
    }
  });

  it('a file of schema version 2 (before waits) gains muster_waits and keeps its sessions', async () => {
    const file = tempFile();
    try {
      const store = new SqliteSessionStore({ path: file.path });
      await store.create(newState('old', { status: 'completed', finalOutput: { n: 1 } }));
      store.close();
      // take the file back to what version 2 wrote
      const db = new Database(file.path);
      db.exec(
        'ALTER TABLE muster_sessions DROP COLUMN budget; ALTER TABLE muster_sessions DROP COLUMN principal; DROP TABLE muster_events; DROP TABLE muster_steering; ALTER TABLE muster_sessions DROP COLUMN event_seq; DROP TABLE muster_waits',
      );
      db.pragma('user_version = 2');
      db.close();
      const again = new SqliteSessionStore({ path: file.path });
      expect(await again.get('old')).toMatchObject({ status: 'completed', finalOutput: { n: 1 } });
      // a session stored before principals belongs to the local user
      expect('principal' in ((await again.get('old')) ?? {})).toBe(false);
      await again.create(newState('new', { principal: 'alice' }));
      expect((await again.get('new'))?.principal).toBe('alice');
      await again.waits.put(pendingWait('old', 'w1'));
      await again.waits.decide('old', 'w1', { decision: 'allow' });
      expect(await again.waits.list()).toMatchObject({ waits: [{ id: 'w1', status: 'decided' }] });
      again.close();
      const check = new Database(file.path, { readonly: true });
      expect(SQLITE_SCHEMA_VERSION).toBe(6);
      expect(check.pragma('user_version', { simple: true })).toBe(6);
      const indexes = check
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'muster_waits'",
        )
        .pluck()
        .all();
      expect(indexes).toContain('muster_waits_status');
      check.close();
    } finally {
      file.remove();
    }
  });

  it('a file of schema version 5 (before budgets) gains the budget column and keeps its sessions', async () => {
    const file = tempFile();
    try {
      const store = new SqliteSessionStore({ path: file.path });
      await store.create(newState('old', { status: 'completed', finalContent: 'done' }));
      store.close();
      const db = new Database(file.path);
      db.exec('ALTER TABLE muster_sessions DROP COLUMN budget');
      db.pragma('user_version = 5');
      db.close();
      const again = new SqliteSessionStore({ path: file.path });
      expect('budget' in ((await again.get('old')) ?? {})).toBe(false);
      const budget = {
        limits: { maxCostUsd: 1 },
        spent: { tokens: 1, costUsd: 0.5, toolCalls: 0, durationMs: 2 },
        warned: [],
      };
      await again.update('old', { budget });
      expect((await again.get('old'))?.budget).toEqual(budget);
      again.close();
      const check = new Database(file.path, { readonly: true });
      expect(check.pragma('user_version', { simple: true })).toBe(6);
      check.close();
    } finally {
      file.remove();
    }
  });

  it('a decision that fails leaves the wait row byte for byte as it was', async () => {
    const file = tempFile();
    try {
      const store = new SqliteSessionStore({ path: file.path });
      await store.waits.put(pendingWait('s', 'w'));
      const row = () => {
        const db = new Database(file.path, { readonly: true });
        const rows = db.prepare('SELECT * FROM muster_waits').all();
        db.close();
        return JSON.stringify(rows);
      };
      const before = row();
      await expect(
        store.waits.decide('s', 'w', { decision: 'allow' }, { fingerprint: 'other' }),
      ).rejects.toMatchObject({ code: 'WAIT_STALE' });
      await expect(
        store.waits.decide('s', 'w', { decision: 'allow', extra: 1 } as never),
      ).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(row()).toBe(before);
      await store.waits.decide('s', 'w', { decision: 'deny' });
      expect(row()).not.toBe(before);
      store.close();
    } finally {
      file.remove();
    }
  });

  it('a failed write (disk or constraint) changes nothing and is an ordinary error the agent types', async () => {
    const file = tempFile();
    try {
      const store = new SqliteSessionStore({ path: file.path });
      await store.create(newState('f'));
      // a message that cannot be serialized fails inside the transaction
      const bad = { role: 'user', content: [{ type: 'text', text: 'x', n: 10n }] } as never;
      await expect(store.update('f', { appendMessages: [bad], iteration: 3 })).rejects.toThrow();
      expect(await store.get('f')).toMatchObject({ iteration: 0, messages: [] });
      store.close();
    } finally {
      file.remove();
    }
  });
});
