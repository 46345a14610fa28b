import { once } from '../util/index.js';
import { KeyedQueue } from './keyed-queue.js';
import { keychainCorruptError, keychainError, keyringMissingError } from './store-errors.js';
import type { KeychainEntryName } from './store-errors.js';
import type { StoredOAuthState, TokenStore } from './token-store.js';

/** Options of {@link keychainTokenStore}. */
export interface KeychainTokenStoreOptions {
  /** The keychain service the entries are filed under (default `muster-agent`). */
  readonly service?: string;
}

/** The keychain service of {@link keychainTokenStore} when none is given. */
export const DEFAULT_KEYCHAIN_SERVICE = 'muster-agent';

/** The part of `@napi-rs/keyring` this store uses (declared here, so our types need none of it). */
export interface KeyringModule {
  readonly AsyncEntry: new (service: string, account: string) => KeyringEntry;
}

/** One keychain entry of `@napi-rs/keyring`. */
export interface KeyringEntry {
  getPassword(): Promise<string | null | undefined>;
  setPassword(password: string): Promise<void>;
  deletePassword(): Promise<boolean>;
}

/** Loads `@napi-rs/keyring`, an optional peer dependency, when the store is first used (once). */
const loadKeyring = once(
  async (): Promise<KeyringModule> => (await import('@napi-rs/keyring')) as KeyringModule,
);

/**
 * A token store in the operating system's keychain, through the optional peer dependency
 * `@napi-rs/keyring` (`npm i @napi-rs/keyring`): the macOS Keychain, the Windows Credential
 * Manager, or on Linux the Secret Service (GNOME Keyring, KWallet); where no Secret Service
 * runs, the library falls back to the kernel keyring, which does not survive a reboot. One
 * entry per key (the account is the key), holding the state as JSON.
 *
 * The package is loaded on first use; when it is missing, every call fails with
 * `INVALID_CONFIGURATION`. The calls for one key run one at a time in this process, so
 * `update` loses nothing to another `update` of the same process; the keychain has no lock
 * that spans processes, so two processes that `update` one key at the same moment may lose
 * one of the two changes (use {@link fileTokenStore} where that matters). For the same reason
 * `exclusive` (around token refreshes) orders the agents of this process only.
 *
 * @example
 * ```ts
 * const store = keychainTokenStore(); // service "muster-agent"
 * await store.set(key, { tokens });
 * ```
 */
export function keychainTokenStore(options: KeychainTokenStoreOptions = {}): TokenStore {
  return keychainTokenStoreOver(loadKeyring, options);
}

/** This process's `exclusive` calls, one at a time per service and key, across stores. */
const refreshers = new KeyedQueue();

/**
 * {@link keychainTokenStore} over a given loader of the keyring module: the seam that lets a
 * test see what happens when the package cannot be loaded. Not part of the public face.
 */
export function keychainTokenStoreOver(
  load: () => Promise<KeyringModule>,
  options: KeychainTokenStoreOptions = {},
): TokenStore {
  const service = options.service ?? DEFAULT_KEYCHAIN_SERVICE;
  const queue = new KeyedQueue();
  let keyring: Promise<KeyringModule> | undefined;

  const entry = async (key: string): Promise<KeyringEntry> => {
    keyring ??= load().catch((err: unknown) => {
      keyring = undefined; // a later call tries again (the package may have been installed)
      throw keyringMissingError(err);
    });
    return new (await keyring).AsyncEntry(service, key);
  };

  const read = async (key: string): Promise<StoredOAuthState | undefined> => {
    const where: KeychainEntryName = { service, key };
    const e = await entry(key);
    let text: string | null | undefined;
    try {
      text = await e.getPassword();
    } catch (err) {
      throw keychainError('read', where, err);
    }
    if (text === null || text === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw keychainCorruptError(where);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw keychainCorruptError(where);
    return value as StoredOAuthState;
  };

  /** Writes `value` as JSON; returns what the entry now holds, as `get` would read it. */
  const write = async (key: string, value: StoredOAuthState): Promise<StoredOAuthState> => {
    const text = JSON.stringify(value);
    const e = await entry(key);
    try {
      await e.setPassword(text);
    } catch (err) {
      throw keychainError('write', { service, key }, err, text);
    }
    return JSON.parse(text) as StoredOAuthState;
  };

  const remove = async (key: string): Promise<void> => {
    const e = await entry(key);
    try {
      await e.deletePassword();
    } catch (err) {
      throw keychainError('delete', { service, key }, err);
    }
  };

  return {
    get: (key) => queue.run(key, () => read(key)),
    async set(key, value) {
      const snapshot = structuredClone(value); // what the caller passed, as it was at the call
      await queue.run(key, () => write(key, snapshot));
    },
    delete: (key) => queue.run(key, () => remove(key)),
    update: (key, change) =>
      queue.run(key, async () => {
        const next = change(await read(key));
        if (next !== undefined) return write(key, next);
        await remove(key);
        return undefined;
      }),
    exclusive: (key, work) => refreshers.run(`${service}\n${key}`, work),
  };
}
