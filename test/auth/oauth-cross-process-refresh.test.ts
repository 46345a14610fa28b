/**
 * Token refresh across processes: processes sharing the file token store, whose access token
 * expired, refresh once between them (the authorization server rotates refresh tokens and
 * revokes the grant when one is used twice), and each then calls with the new token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTokenStore } from '../../src/index.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { startChild } from '../support/child-agent.js';
import { managerFor } from './oauth-support.js';

const CHILD = resolve(import.meta.dirname, '../fixtures/oauth/refresh-child.ts');
const root = mkdtempSync(join(tmpdir(), 'muster-refresh-'));
let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld();
});

afterAll(async () => {
  await world?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('refresh across processes', () => {
  it('item-11: three processes with an expired token on one token file send one refresh, and all three call without a new login', async () => {
    const path = join(root, 'credentials.json');
    // one sign-in, saved to the file
    const { manager } = managerFor(world, {
      store: fileTokenStore({ path }),
      authorize: (url) => world.browse(url),
    });
    expect((await manager.connectAll())[0]?.status).toBe('connected');
    await manager.close();
    world.advanceClock(301); // past the access token's 300 s

    const runs = [0, 1, 2].map(() =>
      startChild(CHILD, {}, { args: [path, world.mcpUrl, world.issuer], stdin: true }),
    );
    await Promise.all(runs.map((r) => r.line('READY')));
    const before = world.counters();
    // no token request is answered until every process has had its token refused, so that
    // all three need a new one at once
    let open!: () => void;
    world.authServer.holdTokenRequests(new Promise<void>((r) => (open = r)));
    try {
      for (const r of runs) r.child.stdin!.write('go\n');
      await Promise.all(runs.map((r) => r.line('UNAUTHORIZED')));
    } finally {
      open();
      world.authServer.holdTokenRequests(undefined);
    }
    const results = await Promise.all(runs.map(async (r) => JSON.parse(await r.line('RESULT'))));
    for (const r of runs) expect(await r.exited).toEqual({ code: 0, signal: null });

    const after = world.counters();
    const delta = (
      counts: Readonly<Record<string, number>>,
      was: Readonly<Record<string, number>>,
    ) => (counts['refresh_token'] ?? 0) - (was['refresh_token'] ?? 0);
    expect(delta(after.tokenRequests, before.tokenRequests)).toBe(1);
    expect(delta(after.tokenErrors, before.tokenErrors)).toBe(0);
    expect(after.authorizationRequests).toBe(before.authorizationRequests);
    expect(results).toEqual([0, 1, 2].map(() => ({ status: 'connected', sub: 'user-1' })));
  });
});
