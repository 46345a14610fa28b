import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild } from '../support/child-agent.js';
import {
  SECRET_SERVICE_PROGRAMS,
  missingSecretServicePrograms,
  startSecretService,
} from '../support/secret-service.js';
import type { SecretService } from '../support/secret-service.js';
import { OLD_FORMAT_KEY, PRINCIPAL_SCENARIO_EXPECTED } from '../support/principal-keys.js';

// The keychain token store against a real Secret Service: GNOME Keyring on a D-Bus session
// bus of the test's own, driven by real child processes (the keyring library reads its
// environment when it is called; a child that starts with the right one is sure to).

const FIXTURE = resolve(import.meta.dirname, '../fixtures/keychain-store-client.ts');
const SERVICE = 'muster-agent-test';
const KEY = 'muster:ada:crm:https://crm.example/mcp';
const STATE = {
  tokens: { access_token: 'canary-at-9f8e7d', token_type: 'Bearer', refresh_token: 'rt-keychain' },
  clientInformation: { client_id: 'muster-client' },
};

const ci = process.env['CI'] === 'true';
const missing = missingSecretServicePrograms();
if (missing.length > 0 && !ci)
  console.warn(
    `Skipping the keychain token store tests: ${missing.join(', ')} not found ` +
      '(Debian: apt-get install gnome-keyring dbus). Under CI=true this is a failure.',
  );

/** Runs the fixture in `mode` against `secrets` and resolves with what it printed. */
async function client(
  secrets: SecretService,
  mode: 'write' | 'read' | 'principals',
): Promise<unknown> {
  const run = startChild(FIXTURE, secrets.env, { args: [mode, SERVICE, KEY] });
  const result: unknown = JSON.parse(await run.line('RESULT'));
  expect(await run.exited, run.stderr()).toEqual({ code: 0, signal: null });
  return result;
}

describe.skipIf(missing.length > 0 && !ci)('keychainTokenStore under GNOME Keyring', () => {
  let secrets: SecretService | undefined;
  beforeAll(async () => {
    if (missing.length === 0) secrets = await startSecretService();
  });
  afterAll(() => secrets?.stop());

  it('stores, updates and deletes entries in the keyring, and another process reads them back', async () => {
    // under CI=true the programs must be there (.ci/run installs them)
    expect(missing, `needs ${SECRET_SERVICE_PROGRAMS.join(', ')}`).toEqual([]);
    const keyring = secrets!;
    expect(await client(keyring, 'write')).toEqual({
      before: null,
      afterSet: STATE,
      updated: { ...STATE, savedAt: 1234 },
      // 20 concurrent updates of one key in one process: none lost
      counted: { savedAt: 20 },
      gone: null,
      corrupt: {
        code: 'INVALID_CONFIGURATION',
        message: expect.stringContaining(`${KEY}#corrupt`) as unknown,
        leaks: false,
      },
    });
    // the keyring itself holds the entries, one per key: asked over D-Bus, not through the
    // library (so a fallback to another store would show here)
    expect(await keyring.countItems({ service: SERVICE, username: KEY })).toBe(1);
    expect(await keyring.countItems({ service: SERVICE, username: `${KEY}#count` })).toBe(1);
    expect(await keyring.countItems({ service: SERVICE, username: `${KEY}#gone` })).toBe(0);
    expect(await keyring.countItems({ service: SERVICE })).toBe(3);

    expect(await client(keyring, 'read')).toEqual({
      got: { ...STATE, savedAt: 1234 },
      after: null,
    });
    expect(await keyring.countItems({ service: SERVICE, username: KEY })).toBe(0);
  });

  it('keeps principals apart (alice:w is not alice), and an old keychain entry still serves the local user', async () => {
    expect(missing, `needs ${SECRET_SERVICE_PROGRAMS.join(', ')}`).toEqual([]);
    const keyring = secrets!;
    expect(await client(keyring, 'principals')).toEqual(PRINCIPAL_SCENARIO_EXPECTED);
    // the keyring itself holds nothing after the scenario deleted all it wrote
    expect(await keyring.countItems({ service: SERVICE, username: OLD_FORMAT_KEY })).toBe(0);
  });
});
