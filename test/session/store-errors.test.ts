import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel, MusterError, SessionError } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { collect } from '../support/run-helpers.js';
import { databaseUrl } from '../support/database.js';
import { newState } from './store-contract.js';

// Store failures typed where they happen: a store used without an agent reports
// SESSION_STORE_FAILED with a reason and a message that says what to do.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'muster-store-errors-'));
  dirs.push(dir);
  return dir;
}

/** The Muster error `fn` throws (or rejects with); fails when it throws anything else. */
async function failure(fn: () => unknown): Promise<MusterError> {
  try {
    await fn();
  } catch (err) {
    if (MusterError.isInstance(err)) return err;
    throw new Error(`expected a MusterError, got ${inspect(err)}`);
  }
  throw new Error('expected a failure');
}

describe('SqliteSessionStore failures', () => {
  it('item-13: a missing folder is SESSION_STORE_FAILED that says to create it', async () => {
    const folder = join(tempDir(), 'not-made');
    const err = await failure(() => new SqliteSessionStore({ path: join(folder, 'sessions.db') }));
    expect(err.code).toBe('SESSION_STORE_FAILED');
    expect(err.details).toMatchObject({ reason: 'folder-missing', store: 'sqlite' });
    expect(err.message).toContain(`folder '${folder}' does not exist: create it`);
  });

  it('item-13: a file another connection holds in BEGIN EXCLUSIVE is `locked`, in the constructor and in a write', async () => {
    const path = join(tempDir(), 'sessions.db');
    const store = new SqliteSessionStore({ path, busyTimeoutMs: 20 });
    const other = new Database(path);
    try {
      other.exec('BEGIN EXCLUSIVE');
      const opening = await failure(() => new SqliteSessionStore({ path, busyTimeoutMs: 20 }));
      expect(opening.code).toBe('SESSION_STORE_FAILED');
      expect(opening.details).toMatchObject({ reason: 'locked', storeCode: 'SQLITE_BUSY' });
      expect(opening.message).toContain('close the other process that holds it');
      expect(opening.message).toContain('busyTimeoutMs (20 ms)');
      // the store's own methods, used without an agent
      const writing = await failure(() => store.create(newState('s1')));
      expect(writing.details).toMatchObject({ reason: 'locked', store: 'sqlite' });
      const deciding = await failure(() => store.waits.decide('s1', 'w1', { decision: 'allow' }));
      expect(deciding.details).toMatchObject({ reason: 'locked' });
      other.exec('COMMIT');
      await store.create(newState('s1'));
      expect(await store.get('s1')).toMatchObject({ id: 's1' });
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      store.close();
    }
  });

  it('item-13: a locked file fails a run with a SessionError that keeps the reason', async () => {
    const path = join(tempDir(), 'sessions.db');
    const store = new SqliteSessionStore({ path, busyTimeoutMs: 20 });
    const other = new Database(path);
    const agent = createAgent({ model: scriptedModel([{ text: 'x' }]), sessionStore: store });
    try {
      other.exec('BEGIN EXCLUSIVE');
      const { error } = await collect(agent.run({ input: 'hi', sessionId: 'held' }));
      expect(SessionError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'SESSION_STORE_FAILED',
        sessionId: 'held',
        details: { reason: 'locked' },
      });
      expect(error?.message).toContain('close the other process that holds it');
    } finally {
      other.exec('ROLLBACK');
      other.close();
      await agent.close();
      store.close();
    }
  });

  it('item-13: a file of garbage bytes is `corrupt` and says to restore it from a backup', async () => {
    const path = join(tempDir(), 'sessions.db');
    writeFileSync(path, randomBytes(8192));
    const err = await failure(() => new SqliteSessionStore({ path }));
    expect(err.code).toBe('SESSION_STORE_FAILED');
    expect(err.details).toMatchObject({ reason: 'corrupt', storeCode: 'SQLITE_NOTADB' });
    expect(err.message).toContain('restore it from a backup');
    // the failed constructor closed the file: it can be replaced at once
    rmSync(path);
    new SqliteSessionStore({ path }).close();
  });

  it('item-13: synchronous is an option; anything but normal or full is refused', async () => {
    const dir = tempDir();
    const store = new SqliteSessionStore({ path: join(dir, 'full.db'), synchronous: 'full' });
    await store.create(newState('kept'));
    store.close();
    const err = await failure(
      () => new SqliteSessionStore({ path: join(dir, 'off.db'), synchronous: 'off' as 'full' }),
    );
    expect(err.code).toBe('INVALID_CONFIGURATION');
    expect(err.message).toContain(`must be 'normal' or 'full', not "off"`);
  });
});

const url = databaseUrl();

/** `DATABASE_URL` with another user, password or database. */
function urlWith(change: { user?: string; password?: string; database?: string }): string {
  const u = new URL(url!);
  if (change.user !== undefined) u.username = change.user;
  if (change.password !== undefined) u.password = change.password;
  if (change.database !== undefined) u.pathname = `/${change.database}`;
  return u.href;
}

/** A loopback port nothing listens on: one the system handed out, then closed. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const CANARY = `canary-pw-${randomBytes(6).toString('hex')}`;

/** Every read of `store` fails with the same typed error, and the password never shows. */
async function storeFailure(connectionString: string): Promise<MusterError> {
  const store = new PostgresSessionStore({ connectionString });
  try {
    const err = await failure(() => store.get('s1'));
    const listing = await failure(() => store.waits.list());
    expect(listing.details).toEqual(err.details);
    for (const e of [err, listing]) {
      expect(inspect(e, { depth: 20 })).not.toContain(CANARY);
      expect(JSON.stringify(e)).not.toContain(CANARY);
    }
    return err;
  } finally {
    await store.close();
  }
}

describe.skipIf(!url)('PostgresSessionStore failures', () => {
  it('item-13: a refused connection says to check the server is running, password masked', async () => {
    const port = await unusedPort();
    const err = await storeFailure(`postgres://muster:${CANARY}@127.0.0.1:${port}/muster`);
    expect(err.code).toBe('SESSION_STORE_FAILED');
    expect(err.details).toMatchObject({
      reason: 'server-unreachable',
      store: 'postgres',
      storeCode: 'ECONNREFUSED',
      host: '127.0.0.1',
      port: String(port),
    });
    expect(err.message).toContain(`could not reach PostgreSQL at 127.0.0.1:${port}`);
    expect(err.message).toContain('check that the server is running');
  });

  it('item-13: a database that does not exist says to create it', async () => {
    const database = `muster_missing_${randomBytes(4).toString('hex')}`;
    const err = await storeFailure(urlWith({ database, password: CANARY }));
    expect(err.details).toMatchObject({
      reason: 'database-missing',
      storeCode: '3D000',
      database,
    });
    expect(err.message).toContain(`database '${database}' does not exist`);
    expect(err.message).toContain(`createdb ${database}`);
  });

  it('item-13: a role that does not exist is `auth-failed` (28000 or 28P01)', async () => {
    // the test server trusts any password, but not a role it does not have
    const user = `muster_nobody_${randomBytes(4).toString('hex')}`;
    const err = await storeFailure(urlWith({ user, password: CANARY }));
    expect(err.details).toMatchObject({ reason: 'auth-failed', store: 'postgres' });
    expect(['28000', '28P01']).toContain(err.details['storeCode']);
    expect(err.message).toContain(`as user '${user}'`);
    expect(err.message).toContain('that the role exists');
  });
});
