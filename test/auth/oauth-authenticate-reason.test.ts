/**
 * `authenticate()` fails with the reason of the sign-in failure in `details.reason` (as
 * docs/auth.md promises), so a host (the `muster` command among them) can say how to fix it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { managerFor } from './oauth-support.js';

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(async () => {
  await world?.close();
});

it('authenticate() names the reason: an authorization server outside allowedOrigins', async () => {
  const { manager } = managerFor(world, {
    allowedOrigins: [],
    authorize: (url) => world.browse(url),
  });
  try {
    await expect(manager.authenticate('w')).rejects.toMatchObject({
      code: 'MCP_AUTH_REQUIRED',
      details: { server: 'w', reason: 'origin-not-allowed' },
    });
  } finally {
    await manager.close();
  }
});
