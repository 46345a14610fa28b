import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SQLITE_SCHEMA_VERSION } from './sqlite-schema.js';
import { openSqliteStore } from './sqlite-open.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('openSqliteStore', () => {
  it('item-13: opens in WAL with synchronous NORMAL or FULL, the schema migrated', () => {
    dir = mkdtempSync(join(tmpdir(), 'muster-sqlite-open-'));
    const normal = openSqliteStore(join(dir, 'a.db'), { busyTimeoutMs: 50, synchronous: 'normal' });
    const full = openSqliteStore(join(dir, 'b.db'), { busyTimeoutMs: 50, synchronous: 'full' });
    try {
      // PRAGMA synchronous reads 1 for NORMAL, 2 for FULL (per connection)
      expect(normal.pragma('synchronous', { simple: true })).toBe(1);
      expect(full.pragma('synchronous', { simple: true })).toBe(2);
      for (const db of [normal, full]) {
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      }
    } finally {
      normal.close();
      full.close();
    }
  });
});
