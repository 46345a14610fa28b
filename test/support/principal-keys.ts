/**
 * The principal scenario every token store must pass (SPEC 15.4): keys made by
 * `oauthNamespace` for `alice:w`, `alice` and no principal never meet; a key in the format
 * Muster used before principals (written by the caller, as an old version did) still serves a
 * caller without a principal; deleting one principal's key leaves the others. Returns what it
 * saw, for the test to compare (the keychain runs it in a child process).
 */
import { inspect } from 'node:util';
import { oauthNamespace } from '../../src/auth/index.js';
import type { StoredOAuthState, TokenStore } from '../../src/auth/index.js';

/** The server, its URL and the OS user of the scenario's keys. */
export const PRINCIPAL_SERVER = { server: 'w', url: 'https://w.example/mcp', user: 'ada' };

/** The key an old version of Muster wrote for the local user, spelled out (not built). */
export const OLD_FORMAT_KEY = 'muster:ada:w:https://w.example/mcp';

/** An access token that no error or status may ever contain. */
export const PRINCIPAL_CANARY = 'canary-at-principal-51c7';

/** The state stored for `who`. */
export const stateOf = (who: string): StoredOAuthState => ({
  tokens: { access_token: `${PRINCIPAL_CANARY}-${who}`, token_type: 'Bearer' },
});

const keyOf = (principal?: string) =>
  oauthNamespace(PRINCIPAL_SERVER.server, PRINCIPAL_SERVER.url, PRINCIPAL_SERVER.user, principal);

/** The principals the scenario writes for, beside the local user (no principal). */
export const PRINCIPALS = ['alice:w', 'alice', 'alice%3Aw', 'ada', 'ada:w:https://w.example/mcp'];

/**
 * Runs the scenario on `store`; `writeOld` stores `value` under `key` as an old version did
 * (through the store itself when omitted: the key is the same string either way).
 */
export async function principalScenario(
  store: TokenStore,
  writeOld: (key: string, value: StoredOAuthState) => Promise<void> = (key, value) =>
    store.set(key, value),
) {
  // a token stored before principals existed: the old key, written as it was
  await writeOld(OLD_FORMAT_KEY, stateOf('local'));
  for (const p of PRINCIPALS) await store.set(keyOf(p), stateOf(p));
  const keys = [keyOf(), ...PRINCIPALS.map((p) => keyOf(p))];
  const read = async () =>
    Object.fromEntries(
      await Promise.all(
        [undefined, ...PRINCIPALS].map(
          async (p) =>
            [p ?? '(local)', (await store.get(keyOf(p)))?.tokens?.access_token ?? null] as const,
        ),
      ),
    );
  const before = await read();
  await store.delete(keyOf('alice:w'));
  const afterDeleteAliceW = await read();
  await store.delete(keyOf());
  const afterDeleteLocal = await read();
  const bad = await Promise.all(
    ['', 'x'.repeat(257), 'alice\nbob', 'a\u0000', 'bad\uD800', 'del\u007F', 'c1\u0085'].map(
      async (p) => {
        try {
          keyOf(p);
          return { code: null };
        } catch (err) {
          // the message never quotes the id (it may hold anything)
          const text = `${(err as Error).message} ${inspect((err as { details?: unknown }).details)}`;
          return { code: (err as { code?: unknown }).code, leaks: p !== '' && text.includes(p) };
        }
      },
    ),
  );
  for (const p of PRINCIPALS) await store.delete(keyOf(p));
  return {
    distinctKeys: new Set(keys).size === keys.length,
    oldKeyIsLocalKey: keyOf() === OLD_FORMAT_KEY,
    before,
    afterDeleteAliceW,
    afterDeleteLocal,
    bad,
  };
}

const at = (who: string) => `${PRINCIPAL_CANARY}-${who}`;

/** What {@link principalScenario} returns on a store that keeps principals apart. */
export const PRINCIPAL_SCENARIO_EXPECTED = {
  distinctKeys: true,
  oldKeyIsLocalKey: true,
  before: {
    '(local)': at('local'),
    ...Object.fromEntries(PRINCIPALS.map((p) => [p, at(p)])),
  },
  afterDeleteAliceW: {
    '(local)': at('local'),
    ...Object.fromEntries(PRINCIPALS.map((p) => [p, p === 'alice:w' ? null : at(p)])),
  },
  afterDeleteLocal: {
    '(local)': null,
    ...Object.fromEntries(PRINCIPALS.map((p) => [p, p === 'alice:w' ? null : at(p)])),
  },
  bad: Array.from({ length: 7 }, () => ({ code: 'INVALID_CONFIGURATION', leaks: false })),
};
