import type { StoredOAuthState, TokenStore } from './token-store.js';

/** A token store in this process's memory (placeholder until the stores land). */
export function memoryTokenStore(): TokenStore {
  const entries = new Map<string, StoredOAuthState>();
  return {
    get: async (key) => structuredClone(entries.get(key)),
    set: async (key, value) => {
      entries.set(key, structuredClone(value));
    },
    delete: async (key) => {
      entries.delete(key);
    },
    update: async (key, change) => {
      const next = change(structuredClone(entries.get(key)));
      if (next === undefined) entries.delete(key);
      else entries.set(key, structuredClone(next));
      return structuredClone(next);
    },
  };
}
