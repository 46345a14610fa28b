/**
 * Signing in to a remote MCP server with OAuth (docs/guide/authentication.md), offline: a
 * real authorization server and a protected MCP server on loopback (the test suite's OAuth
 * world), and a "browser" that logs in and consents without a person. Push mode: Muster calls
 * `authorize(url)` when the server needs a sign-in; the tokens go to a credentials file, and a
 * second process (here a second manager) on that file connects without signing in again.
 *
 *   npx tsx examples/authentication.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileTokenStore } from '../src/index.js';
import type { McpOAuthServerOptions } from '../src/index.js';
import { McpClientManager } from '../src/mcp/mcp-entry.js';
import { startOAuthWorld } from '../test/fixtures/oauth/index.js';

const world = await startOAuthWorld(); // issuer and MCP server on 127.0.0.1, random ports
const dir = mkdtempSync(join(tmpdir(), 'muster-auth-'));
const store = fileTokenStore({ path: join(dir, 'credentials.json') }); // default ~/.muster/credentials.json

const oauth = (authorize?: McpOAuthServerOptions['authorize']): McpOAuthServerOptions => ({
  serverUrl: world.mcpUrl, // exactly the server's url
  allowedOrigins: [world.issuer], // the authorization server may be contacted
  redirectUri: 'http://127.0.0.1:8976/callback', // where your app catches the browser
  store,
  ...(authorize ? { authorize } : {}),
});

const first = new McpClientManager(
  { docs: { type: 'http', url: world.mcpUrl } },
  {
    strictConfig: true,
    oauth: {
      docs: oauth(async (url) => {
        console.log(`[authorize] ${new URL(url).pathname} on the authorization server`);
        return world.browse(url); // a real app opens the browser and waits for the redirect
      }),
    },
  },
);

try {
  await first.connectAll();
  const me = (await first.callTool('docs', 'whoami', {})).structuredContent as { sub: string };
  console.log(`[signed in] as ${me.sub}`);
  await first.close();

  // another process on the same credentials file: no sign-in
  const second = new McpClientManager(
    { docs: { type: 'http', url: world.mcpUrl } },
    { strictConfig: true, oauth: { docs: oauth() } },
  );
  console.log(`[second] ${(await second.connectAll())[0]?.status}, no sign-in asked`);
  await second.logout('docs'); // forgets the stored tokens
  console.log(`[logout] ${second.list()[0]?.status}`);
  await second.close();
} finally {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
}
