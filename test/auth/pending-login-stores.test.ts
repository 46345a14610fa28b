/**
 * The waiting sign-in of a namespace (`pendingLogin`: `state`, PKCE verifier, deadline) in
 * the memory and file token stores: saved beside the tokens, taken by exactly one caller,
 * and a credentials file whose entry holds a malformed one refused, typed, never quoted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileTokenStore, memoryTokenStore } from '../../src/auth/index.js';
import type { TokenStore } from '../../src/auth/index.js';
import { StoredLogin } from '../../src/auth/oauth-pending-login.js';

const root = mkdtempSync(join(tmpdir(), 'muster-pending-login-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const KEY = 'muster+p:bob:ada:crm:https://crm.example/mcp';
const TOKENS = { access_token: 'at-bob', token_type: 'Bearer' };
const LOGIN = { state: 'state-1', verifier: 'verifier-canary-'.padEnd(43, 'x'), expiresAt: 1e13 };

const stores: [string, () => TokenStore][] = [
  ['memory', () => memoryTokenStore()],
  ['file', () => fileTokenStore({ path: join(root, `${Math.random()}.json`) })],
];

describe.each(stores)('the %s store', (_name, make) => {
  it('keeps a waiting sign-in beside the tokens; one take removes it, a second finds nothing', async () => {
    const store = make();
    await store.set(KEY, { tokens: TOKENS });
    const login = new StoredLogin(store, () => KEY);
    await login.save(LOGIN);
    expect(await store.get(KEY)).toEqual({ tokens: TOKENS, pendingLogin: LOGIN });
    expect(await login.read()).toEqual(LOGIN);
    // another state takes nothing
    expect(await login.take('state-2')).toBe(false);
    const [first, second] = await Promise.all([login.take('state-1'), login.take('state-1')]);
    expect([first, second].sort()).toEqual([false, true]);
    expect(await store.get(KEY)).toEqual({ tokens: TOKENS });
  });

  it('a newer sign-in replaces the older one; taking the last leaves no entry behind', async () => {
    const store = make();
    const login = new StoredLogin(store, () => KEY);
    await login.save(LOGIN);
    await login.save({ ...LOGIN, state: 'state-2' });
    expect(await login.take('state-1')).toBe(false);
    expect(await login.take('state-2')).toBe(true);
    expect(await store.get(KEY)).toBeUndefined();
  });
});

describe('the credentials file', () => {
  const entryWith = (pendingLogin: unknown) =>
    JSON.stringify({ version: 1, entries: { [KEY]: { tokens: TOKENS, pendingLogin } } });

  it('reads a waiting sign-in back', async () => {
    const path = join(root, 'good.json');
    writeFileSync(path, entryWith(LOGIN), { mode: 0o600 });
    expect((await fileTokenStore({ path }).get(KEY))?.pendingLogin).toEqual(LOGIN);
  });

  it.each([
    ['not an object', 'verifier-canary'],
    ['no verifier', { state: 's', expiresAt: 1 }],
    ['no state', { verifier: 'verifier-canary', expiresAt: 1 }],
    [
      'a deadline that is not a number',
      { state: 's', verifier: 'verifier-canary', expiresAt: '1' },
    ],
  ])('refuses one that is %s, naming the file and quoting nothing', async (_why, pending) => {
    const path = join(root, `bad-${Math.random()}.json`);
    writeFileSync(path, entryWith(pending), { mode: 0o600 });
    const err = await fileTokenStore({ path })
      .get(KEY)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toContain('pendingLogin');
    expect((err as Error).message).not.toContain('verifier-canary');
  });
});
