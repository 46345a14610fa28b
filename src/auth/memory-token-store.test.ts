import { describe, expect, it } from 'vitest';
import { memoryTokenStore } from './index.js';
import type { StoredOAuthState } from './index.js';

const KEY = 'muster:ada:crm:https://crm.example/mcp';
const state = (accessToken: string): StoredOAuthState => ({
  tokens: { access_token: accessToken, token_type: 'Bearer', refresh_token: 'rt-1' },
  savedAt: 1_700_000_000_000,
});

/** Makes `value` writable again, as a caller holding a plain object could. */
const writable = (value: StoredOAuthState | undefined) =>
  value as { tokens: { access_token: string } } | undefined;

describe('memoryTokenStore', () => {
  it('keeps a copy of what it is given: changing the object later changes nothing stored', async () => {
    const store = memoryTokenStore();
    const given = state('at-1');
    await store.set(KEY, given);
    writable(given)!.tokens.access_token = 'changed by the caller';
    expect(await store.get(KEY)).toEqual(state('at-1'));
  });

  it('hands out copies: changing what get or update returned changes nothing stored', async () => {
    const store = memoryTokenStore();
    await store.set(KEY, state('at-1'));
    writable(await store.get(KEY))!.tokens.access_token = 'changed after get';
    const written = await store.update(KEY, (current) => ({ ...current, savedAt: 1 }));
    writable(written)!.tokens.access_token = 'changed after update';
    expect(await store.get(KEY)).toEqual({ ...state('at-1'), savedAt: 1 });
  });

  it('gives update a copy of the current state, so a change it does not return is not kept', async () => {
    const store = memoryTokenStore();
    await store.set(KEY, state('at-1'));
    await store.update(KEY, (current) => {
      writable(current)!.tokens.access_token = 'changed in place';
      return state('at-2');
    });
    expect(await store.get(KEY)).toEqual(state('at-2'));
  });

  it('update sees the current state and returns what it wrote; undefined deletes the key', async () => {
    const store = memoryTokenStore();
    const seen: Array<StoredOAuthState | undefined> = [];
    const first = await store.update(KEY, (current) => {
      seen.push(current);
      return state('at-1');
    });
    expect(first).toEqual(state('at-1'));
    const gone = await store.update(KEY, (current) => {
      seen.push(current);
      return undefined;
    });
    expect(gone).toBeUndefined();
    expect(seen).toEqual([undefined, state('at-1')]);
    expect(await store.get(KEY)).toBeUndefined();
  });

  it('runs concurrent updates of one key one at a time, so none is lost', async () => {
    const store = memoryTokenStore();
    await Promise.all(
      Array.from({ length: 100 }, () =>
        store.update(KEY, (current) => ({ savedAt: (current?.savedAt ?? 0) + 1 })),
      ),
    );
    expect(await store.get(KEY)).toEqual({ savedAt: 100 });
  });

  it('applies the calls for one key in the order they were made', async () => {
    const store = memoryTokenStore();
    const calls = [
      store.set(KEY, state('at-1')),
      store.update(KEY, (current) => ({ ...current, savedAt: 2 })),
      store.delete(KEY),
      store.update(KEY, (current) => (current === undefined ? state('at-3') : undefined)),
    ];
    const read = store.get(KEY);
    await Promise.all(calls);
    expect(await read).toEqual(state('at-3'));
  });

  it('fails an update whose change throws, leaves the state as it was and goes on', async () => {
    const store = memoryTokenStore();
    await store.set(KEY, state('at-1'));
    const boom = new Error('change failed');
    await expect(
      store.update(KEY, () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await store.get(KEY)).toEqual(state('at-1'));
    await store.update(KEY, () => state('at-2'));
    expect(await store.get(KEY)).toEqual(state('at-2'));
  });

  it('delete forgets a key, keeps the others, and deleting a missing key is no error', async () => {
    const store = memoryTokenStore();
    await store.set(KEY, state('at-1'));
    await store.set(`${KEY}-other`, state('at-other'));
    await store.delete(KEY);
    await store.delete(KEY);
    await store.delete('never stored');
    expect(await store.get(KEY)).toBeUndefined();
    expect(await store.get(`${KEY}-other`)).toEqual(state('at-other'));
  });

  it('keeps the state of separate stores apart', async () => {
    const a = memoryTokenStore();
    const b = memoryTokenStore();
    await a.set(KEY, state('at-a'));
    expect(await b.get(KEY)).toBeUndefined();
  });
});
