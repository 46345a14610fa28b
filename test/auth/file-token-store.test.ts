import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fileTokenStore, oauthNamespace } from '../../src/auth/index.js';
import type { StoredOAuthState } from '../../src/auth/index.js';
import { MusterError } from '../../src/errors/index.js';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import {
  OLD_FORMAT_KEY,
  PRINCIPAL_SCENARIO_EXPECTED,
  PRINCIPAL_SERVER,
  principalScenario,
  stateOf,
} from '../support/principal-keys.js';

const WRITER = resolve(import.meta.dirname, '../fixtures/token-store-writer.ts');
const CANARY = 'canary-at-9f8e7d';
const KEY = 'muster:ada:crm:https://crm.example/mcp';
const STATE: StoredOAuthState = {
  tokens: { access_token: CANARY, token_type: 'Bearer', refresh_token: 'rt-1' },
  clientInformation: { client_id: 'muster-client' },
  savedAt: 1_700_000_000_000,
};

const root = mkdtempSync(join(tmpdir(), 'muster-file-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
/** A fresh folder for one test (created, unless `create` is false). */
const folder = (create = true) => {
  const dir = join(root, `t${++n}`);
  if (create) mkdirSync(dir);
  return dir;
};
const modeOf = (path: string) => statSync(path).mode & 0o777;
const leftovers = (dir: string) => readdirSync(dir).filter((f) => f !== 'credentials.json');

/** Starts writer processes on `path`, lets them go at once, and waits for all of them. */
async function runWriters(
  path: string,
  writers: ReadonlyArray<{ prefix: string; count: number }>,
  env: Record<string, string> = {},
): Promise<void> {
  const runs: ChildRun[] = writers.map(({ prefix, count }) =>
    startChild(WRITER, env, { args: [path, prefix, String(count)], stdin: true }),
  );
  await Promise.all(runs.map((r) => r.line('READY')));
  for (const r of runs) r.child.stdin!.write('go\n');
  await Promise.all(runs.map((r) => r.line('DONE')));
  for (const r of runs) expect(await r.exited).toEqual({ code: 0, signal: null });
}

describe('fileTokenStore', () => {
  const savedHome = process.env['MUSTER_HOME'];
  afterEach(() => {
    process.env['MUSTER_HOME'] = savedHome;
  });

  it('round-trips through credentials.json in MUSTER_HOME, making the missing folder 0700', async () => {
    const home = join(folder(), 'home');
    process.env['MUSTER_HOME'] = home;
    const store = fileTokenStore();
    expect(await store.get(KEY)).toBeUndefined();
    await store.set(KEY, STATE);
    await store.set('other', { savedAt: 1 });
    expect(modeOf(home)).toBe(0o700);
    // another store on the same file (as another process would be) reads what was written
    const again = fileTokenStore({ path: join(home, 'credentials.json') });
    expect(await again.get(KEY)).toEqual(STATE);
    const written = await again.update(KEY, (current) => ({ ...current, savedAt: 2 }));
    expect(written).toEqual({ ...STATE, savedAt: 2 });
    expect(await store.get(KEY)).toEqual({ ...STATE, savedAt: 2 });
    await store.delete('other');
    await store.delete('never there');
    expect(JSON.parse(readFileSync(join(home, 'credentials.json'), 'utf8'))).toEqual({
      version: 1,
      entries: { [KEY]: { ...STATE, savedAt: 2 } },
    });
    expect(await store.update(KEY, () => undefined)).toBeUndefined();
    expect(await store.get(KEY)).toBeUndefined();
  });

  it('keeps a copy of what it is given, and a key named __proto__ is just a key', async () => {
    const store = fileTokenStore({ path: join(folder(), 'credentials.json') });
    const given = { tokens: { access_token: 'at-1', token_type: 'Bearer' } };
    const pending = store.set('__proto__', given);
    given.tokens.access_token = 'changed by the caller';
    await pending;
    expect(await store.get('__proto__')).toEqual({
      tokens: { access_token: 'at-1', token_type: 'Bearer' },
    });
    expect(await store.get('toString')).toBeUndefined();
  });

  it('writes the file 0600 and leaves no temporary file, even under umask 000', async () => {
    const dir = folder();
    const path = join(dir, 'credentials.json');
    await runWriters(path, [{ prefix: 'a', count: 5 }], { WRITER_UMASK: '000' });
    expect(modeOf(path)).toBe(0o600);
    expect(leftovers(dir)).toEqual([]);
  });

  it('creates each temporary file 0600, so no write is ever readable by others', async () => {
    const dir = folder();
    const path = join(dir, 'credentials.json');
    const seen = new Map<string, number>();
    // every temporary file that still exists when its creation is reported is looked at; big
    // values make each write last long enough for most of them to be seen
    const watcher = watch(dir, (_event, name) => {
      if (!name || !name.endsWith('.tmp') || seen.has(name)) return;
      try {
        seen.set(name, modeOf(join(dir, name)));
      } catch {
        // already renamed over the file
      }
    });
    try {
      await runWriters(path, [{ prefix: 'big', count: 8 }], {
        WRITER_UMASK: '000',
        WRITER_PAD_BYTES: String(512 * 1024),
      });
    } finally {
      watcher.close();
    }
    expect(seen.size).toBeGreaterThan(0);
    expect([...new Set(seen.values())]).toEqual([0o600]);
    expect(leftovers(dir)).toEqual([]);
  });

  it('tightens an existing file with a wider mode to 0600 on the next write', async () => {
    for (const wide of [0o644, 0o666]) {
      const path = join(folder(), 'credentials.json');
      writeFileSync(path, JSON.stringify({ version: 1, entries: { [KEY]: STATE } }));
      chmodSync(path, wide);
      const store = fileTokenStore({ path });
      expect(await store.get(KEY)).toEqual(STATE);
      expect(modeOf(path)).toBe(wide); // reading changes nothing
      await store.set('other', { savedAt: 1 });
      expect(modeOf(path)).toBe(0o600);
      expect(await store.get(KEY)).toEqual(STATE);
    }
  });

  it('fails on a corrupt file with INVALID_CONFIGURATION naming it, never quoting it, and leaves it alone', async () => {
    const corrupt = [
      `{"version":1,"entries":{"${KEY}":{"tokens":{"access_token":"${CANARY}"`,
      `${CANARY}`,
      `["${CANARY}"]`,
      JSON.stringify({ version: 2, entries: { [KEY]: STATE } }),
      JSON.stringify({ entries: { [KEY]: STATE } }),
      JSON.stringify({ version: 1, entries: [CANARY] }),
      JSON.stringify({ version: 1, entries: { [KEY]: CANARY } }),
      JSON.stringify({ version: 1, entries: { [KEY]: { tokens: CANARY } } }),
      '',
    ];
    for (const text of corrupt) {
      const path = join(folder(), 'credentials.json');
      writeFileSync(path, text, { mode: 0o600 });
      const store = fileTokenStore({ path });
      const calls = [
        store.get(KEY),
        store.set(KEY, STATE),
        store.update(KEY, () => STATE),
        store.delete(KEY),
      ];
      for (const call of calls) {
        const err: unknown = await call.catch((e: unknown) => e);
        expect(MusterError.isInstance(err), text).toBe(true);
        expect((err as MusterError).code).toBe('INVALID_CONFIGURATION');
        expect((err as MusterError).message).toContain(path);
        expect((err as MusterError).message).toMatch(/delete it .* or fix it/);
        expect(inspect(err, { depth: 10 })).not.toContain(CANARY);
      }
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });

  it('keeps the original error as cause for I/O failures, and the message has no stored value', async () => {
    // the path is a folder: reading it fails
    const dir = folder();
    const asFolder = fileTokenStore({ path: dir });
    const read: unknown = await asFolder.get(KEY).catch((e: unknown) => e);
    expect((read as MusterError).code).toBe('INVALID_CONFIGURATION');
    expect((read as MusterError).message).toContain(dir);
    expect(((read as MusterError).cause as NodeJS.ErrnoException).code).toBe('EISDIR');
    // the folder of the path is a file: writing the canary fails
    const file = join(folder(), 'not-a-folder');
    writeFileSync(file, '');
    const underFile = fileTokenStore({ path: join(file, 'credentials.json') });
    const write: unknown = await underFile.set(KEY, STATE).catch((e: unknown) => e);
    expect(MusterError.isInstance(write)).toBe(true);
    expect((write as MusterError).code).toBe('INVALID_CONFIGURATION');
    expect(((write as MusterError).cause as NodeJS.ErrnoException).code).toMatch(/ENOTDIR|EEXIST/);
    expect(inspect(write, { depth: 10 })).not.toContain(CANARY);
  });

  it('loses nothing when two processes write the file at once', async () => {
    const dir = folder();
    const path = join(dir, 'credentials.json');
    await runWriters(path, [
      { prefix: 'one', count: 50 },
      { prefix: 'two', count: 50 },
    ]);
    const doc = JSON.parse(readFileSync(path, 'utf8')) as {
      entries: Record<string, StoredOAuthState>;
    };
    const keys = Object.keys(doc.entries).filter((k) => k !== 'shared-counter');
    const expected = ['one', 'two'].flatMap((p) =>
      Array.from({ length: 50 }, (_, i) => `${p}-${i}`),
    );
    expect(keys.sort()).toEqual(expected.sort());
    for (const k of expected) expect(doc.entries[k]?.tokens?.access_token).toBe(`at-${k}`);
    // every one of the 100 increments of one key made by the two processes is there
    expect(doc.entries['shared-counter']).toEqual({ savedAt: 100 });
    // the lock folder is gone, and no temporary file is left
    expect(leftovers(dir)).toEqual([]);
  });

  it('keeps principals apart (alice:w is not alice), and an old credentials file still serves the local user', async () => {
    const path = join(folder(), 'credentials.json');
    const store = fileTokenStore({ path });
    // the file an old version wrote: its key in the only format it knew, written by hand
    const writeOld = async (key: string, value: StoredOAuthState) => {
      writeFileSync(path, JSON.stringify({ version: 1, entries: { [key]: value } }), {
        mode: 0o600,
      });
    };
    expect(await principalScenario(store, writeOld)).toEqual(PRINCIPAL_SCENARIO_EXPECTED);
    // the scenario deleted what it wrote: nothing of anyone is left in the file
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ version: 1, entries: {} });
  });

  it('files each principal under its own key in the document', async () => {
    const path = join(folder(), 'credentials.json');
    const store = fileTokenStore({ path });
    const { server, url, user } = PRINCIPAL_SERVER;
    await store.set(oauthNamespace(server, url, user), stateOf('local'));
    await store.set(oauthNamespace(server, url, user, 'alice:w'), stateOf('alice:w'));
    await store.set(oauthNamespace(server, url, user, 'alice'), stateOf('alice'));
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { entries: Record<string, unknown> };
    expect(Object.keys(doc.entries).sort()).toEqual([
      'muster+p:alice%3Aw:ada:w:https://w.example/mcp',
      'muster+p:alice:ada:w:https://w.example/mcp',
      OLD_FORMAT_KEY,
    ]);
  });
});
