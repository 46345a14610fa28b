import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import type { StoredOAuthState } from './index.js';
// the seam under the public factory: a store over a given loader of the keyring module
import { keychainTokenStoreOver } from './keychain-token-store.js';
import type { KeyringEntry, KeyringModule } from './keychain-token-store.js';

// The real keychain (GNOME Keyring over D-Bus) is driven in test/auth/keychain-token-store.test.ts;
// here a fake keyring module shows what the store itself adds: lazy loading, the error for a
// missing package, per-key order, and errors that never carry a stored value.

const CANARY = 'canary-at-9f8e7d';
const KEY = 'muster:ada:crm:https://crm.example/mcp';
const STATE: StoredOAuthState = { tokens: { access_token: CANARY, token_type: 'Bearer' } };

/** Yields to the event loop, so that unserialized calls would interleave. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An in-memory keyring with the async shape of `@napi-rs/keyring`. */
function fakeKeyring(fail?: { set?: (password: string) => Error; get?: () => Error }) {
  const entries = new Map<string, string>();
  const module: KeyringModule = {
    AsyncEntry: class implements KeyringEntry {
      readonly #id: string;
      constructor(service: string, account: string) {
        this.#id = `${service}\u0000${account}`;
      }
      async getPassword() {
        await turn();
        if (fail?.get) throw fail.get();
        return entries.get(this.#id) ?? null;
      }
      async setPassword(password: string) {
        await turn();
        if (fail?.set) throw fail.set(password);
        entries.set(this.#id, password);
      }
      async deletePassword() {
        await turn();
        return entries.delete(this.#id);
      }
    },
  };
  return { module, entries };
}

describe('keychainTokenStore', () => {
  it('loads nothing when it is made, and the keyring module on first use', async () => {
    const { module, entries } = fakeKeyring();
    let loads = 0;
    const store = keychainTokenStoreOver(async () => {
      loads += 1;
      return module;
    });
    expect(loads).toBe(0);
    await store.set(KEY, STATE);
    expect(await store.get(KEY)).toEqual(STATE);
    expect(loads).toBe(1);
    // the default service, one entry per key
    expect([...entries.keys()]).toEqual([`muster-agent\u0000${KEY}`]);
  });

  it("keeps a waiting sign-in (state, verifier, deadline) with the entry's tokens", async () => {
    const { module } = fakeKeyring();
    const store = keychainTokenStoreOver(async () => module);
    const pendingLogin = { state: 's-1', verifier: 'v'.repeat(43), expiresAt: 1_700_000_000_000 };
    await store.set(KEY, STATE);
    await store.update(KEY, (current) => ({ ...current, pendingLogin }));
    expect(await store.get(KEY)).toEqual({ ...STATE, pendingLogin });
  });

  it('fails with INVALID_CONFIGURATION naming the install command when @napi-rs/keyring cannot load', async () => {
    const missing = 'muster-test-no-such-package';
    const store = keychainTokenStoreOver(() => import(missing) as Promise<KeyringModule>);
    const err: unknown = await store.get(KEY).catch((e: unknown) => e);
    expect(MusterError.isInstance(err)).toBe(true);
    expect((err as MusterError).code).toBe('INVALID_CONFIGURATION');
    expect((err as MusterError).message).toContain('npm i @napi-rs/keyring');
    expect((err as MusterError).cause).toBeInstanceOf(Error);
    // every call fails the same way, and none hangs on the failed load
    await expect(store.set(KEY, STATE)).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
  });

  it('runs concurrent updates of one key one at a time, so none is lost', async () => {
    const { module } = fakeKeyring();
    const store = keychainTokenStoreOver(async () => module);
    await Promise.all(
      Array.from({ length: 20 }, () =>
        store.update(KEY, (current) => ({ savedAt: (current?.savedAt ?? 0) + 1 })),
      ),
    );
    expect(await store.get(KEY)).toEqual({ savedAt: 20 });
  });

  it('keeps one entry per key under the service, as JSON; delete and an undefined update remove it', async () => {
    const { module, entries } = fakeKeyring();
    const store = keychainTokenStoreOver(async () => module, { service: 'svc' });
    await store.set(KEY, STATE);
    await store.set('other', { savedAt: 1 });
    expect(JSON.parse(entries.get(`svc\u0000${KEY}`)!)).toEqual(STATE);
    await store.delete(KEY);
    await store.delete(KEY);
    expect(await store.update('other', () => undefined)).toBeUndefined();
    expect(entries.size).toBe(0);
  });

  it('an entry that is not stored JSON fails with INVALID_CONFIGURATION and is not quoted', async () => {
    const { module, entries } = fakeKeyring();
    const store = keychainTokenStoreOver(async () => module, { service: 'svc' });
    for (const text of [`{"tokens":{"access_token":"${CANARY}"`, `["${CANARY}"]`]) {
      entries.set(`svc\u0000${KEY}`, text);
      const err: unknown = await store.get(KEY).catch((e: unknown) => e);
      expect((err as MusterError).code).toBe('INVALID_CONFIGURATION');
      expect((err as MusterError).message).toContain(KEY);
      expect(inspect(err, { depth: 10 })).not.toContain(CANARY);
    }
  });

  it('a keychain failure keeps its reason but never the value that was being written', async () => {
    const { module } = fakeKeyring({
      set: (password) => new Error(`the keychain refused ${password}`),
      get: () => new Error('the keychain is locked'),
    });
    const store = keychainTokenStoreOver(async () => module);
    const write: unknown = await store.set(KEY, STATE).catch((e: unknown) => e);
    expect((write as MusterError).code).toBe('INTERNAL_ERROR');
    expect((write as MusterError).message).toContain('the keychain refused');
    expect(inspect(write, { depth: 10 })).not.toContain(CANARY);
    const read: unknown = await store.get(KEY).catch((e: unknown) => e);
    expect((read as MusterError).message).toContain('the keychain is locked');
    expect((read as MusterError).cause).toBeInstanceOf(Error);
  });
});
