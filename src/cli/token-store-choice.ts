import { join } from 'node:path';
import { CREDENTIALS_FILE_NAME, fileTokenStore, keychainTokenStore } from '../auth/index.js';
import type { StoredOAuthState, TokenStore } from '../auth/index.js';
import { MusterError } from '../errors/index.js';

/** The token stores `muster mcp auth|logout --store` names. */
export const STORE_CHOICES = ['file', 'keychain'] as const;

/** A store chosen on the command line, where it keeps tokens (for messages), and what was removed. */
export interface ChosenStore {
  readonly store: TokenStore;
  /** `MUSTER_HOME/credentials.json`, or `the OS keychain`. */
  readonly where: string;
  /** What the last `delete` found under its key (field names only: never values). */
  readonly removed: () => readonly string[] | undefined;
}

/**
 * The library's file store (`<home>/credentials.json`, mode 0600) or keychain store, watched
 * so `logout` can say what it removed. Anything else fails with `INVALID_CONFIGURATION`.
 */
export function chooseStore(choice: string, home: string): ChosenStore {
  if (!(STORE_CHOICES as readonly string[]).includes(choice)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Unknown --store '${choice}': use ${STORE_CHOICES.join(' or ')}.`,
    );
  }
  const path = join(home, CREDENTIALS_FILE_NAME);
  const inner = choice === 'file' ? fileTokenStore({ path }) : keychainTokenStore();
  let removed: string[] | undefined;
  const fields = (state: StoredOAuthState | undefined): string[] =>
    state === undefined
      ? []
      : Object.entries(state)
          .filter(([k, v]) => v !== undefined && k !== 'savedAt')
          .map(([k]) => k);
  const store: TokenStore = {
    get: (key) => inner.get(key),
    set: (key, value) => inner.set(key, value),
    update: (key, change) => inner.update(key, change),
    exclusive: (key, work) => (inner.exclusive ? inner.exclusive(key, work) : work()),
    async delete(key) {
      removed = fields(await inner.get(key));
      await inner.delete(key);
    },
  };
  return {
    store,
    where: choice === 'file' ? path : 'the OS keychain',
    removed: () => removed,
  };
}
