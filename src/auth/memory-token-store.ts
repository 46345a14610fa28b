import { KeyedQueue } from './keyed-queue.js';
import type { StoredOAuthState, TokenStore } from './token-store.js';

/** A deep copy, so that neither the caller nor the store can change what the other holds. */
const copy = <T>(value: T): T => structuredClone(value);

/**
 * A token store in this process's memory: the default when a host names no store, and the
 * store of tests. Values are deep-copied on the way in and out (a caller that changes an
 * object it passed or got back changes nothing stored), and the calls for one key run one at
 * a time in the order they were made; `exclusive` orders the refreshes of the agents sharing
 * the store. Nothing survives the process.
 *
 * @example
 * ```ts
 * const store = memoryTokenStore();
 * await store.set(key, { tokens: { access_token: 'at', token_type: 'Bearer' } });
 * await store.update(key, (state) => ({ ...state, savedAt: Date.now() }));
 * ```
 */
export function memoryTokenStore(): TokenStore {
  const entries = new Map<string, StoredOAuthState>();
  const queue = new KeyedQueue();
  const exclusive = new KeyedQueue();
  return {
    async get(key) {
      return queue.run(key, () => copy(entries.get(key)));
    },
    async set(key, value) {
      const stored = copy(value);
      await queue.run(key, () => {
        entries.set(key, stored);
      });
    },
    async delete(key) {
      await queue.run(key, () => {
        entries.delete(key);
      });
    },
    async update(key, change) {
      return queue.run(key, () => {
        const next = change(copy(entries.get(key)));
        if (next === undefined) {
          entries.delete(key);
          return undefined;
        }
        const stored = copy(next);
        entries.set(key, stored);
        return copy(stored);
      });
    },
    exclusive: (key, work) => exclusive.run(key, work),
  };
}
