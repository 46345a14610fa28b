/**
 * One agent, many users (docs/guide/principals.md), offline: a real authorization server and a
 * protected MCP server on loopback (the test suite's OAuth world, in its per-user mode, where
 * alice sees one tool more). Each principal signs in on its own (pull mode: the host hands the
 * URL to that user, here a "browser" that logs in without a person); each run names the user it
 * acts for, and its calls go out on a connection opened with that user's token only. A user
 * who has not signed in yet parks the run until the sign-in is done.
 *
 *   npx tsx examples/principals.ts
 */
import { createAgent, memoryTokenStore, scriptedModel } from '../src/index.js';
import type { ModelRequest } from '../src/index.js';
import { startOAuthWorld } from '../test/fixtures/oauth/index.js';

const world = await startOAuthWorld({
  perUser: (server, sub) => {
    if (sub === 'alice')
      server.registerTool('notes', { description: "Alice's notes." }, async () => ({
        content: [{ type: 'text', text: 'buy milk' }],
      }));
  },
});

// the model calls whoami, then answers with what the tool said and the tools it was shown
const turn = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  if (last?.role !== 'tool') return { toolCalls: [{ name: 'mcp__docs__whoami', arguments: {} }] };
  const tools = request.tools.map((t) => t.name).filter((n) => n.startsWith('mcp__'));
  return { text: `${last.content} | tools: ${tools.join(', ')}` };
};

const agent = createAgent({
  model: scriptedModel(Array.from({ length: 10 }, () => turn)),
  policy: { allow: ['mcp_connect:docs', 'mcp__docs__*'] },
  mcpServers: { docs: { type: 'http', url: world.mcpUrl } },
  mcp: {
    strictConfig: true,
    oauth: {
      docs: {
        serverUrl: world.mcpUrl,
        allowedOrigins: [world.issuer],
        redirectUri: 'http://127.0.0.1:8976/callback',
        store: memoryTokenStore(), // 'file' or 'keychain' keep them across restarts
        perPrincipal: true, // a connection and a catalog per user
      },
    },
    maxPrincipalConnections: 64, // open per-user connections, across the agent
    principalIdleMs: 5 * 60_000, // an unused one closes after this
  },
});

try {
  for (const principal of ['alice', 'bob']) {
    // your app shows this URL to that user; the callback comes back to your redirectUri
    const { authUrl } = await agent.mcp.authenticate('docs', { principal });
    const callback = await world.browse(authUrl!, { account: principal });
    await agent.mcp.submitOAuthCallback('docs', callback, { principal });
    console.log(`[signed in] ${principal}`);
  }

  // both users' runs at once, on one agent
  const [alice, bob] = await Promise.all([
    agent.send('who am I?', { principal: 'alice' }),
    agent.send('who am I?', { principal: 'bob' }),
  ]);
  console.log(`[alice] ${alice.text}`);
  console.log(`[bob] ${bob.text}`);

  // signing one user out closes that user's connection and forgets that user's tokens only
  await agent.mcp.logout('docs', { principal: 'alice' });
  const again = await agent.send('who am I?', { principal: 'bob' });
  console.log(`[bob, after alice signed out] ${again.text}`);

  // a user who has not signed in yet: the run parks on an auth wait (no URL is stored) ...
  const parked = await agent.send('who am I?', { principal: 'carol' });
  const [wait] = parked.waits ?? [];
  console.log(`[carol] ${parked.status}: ${wait?.kind} wait for '${wait?.server}'`);
  // ... your app asks for a fresh URL (any process with the same stores may), the user signs
  // in, and the callback decides the wait; resume() goes on where the run stopped
  const { authUrl } = await agent.mcp.authenticate('docs', { principal: 'carol' });
  const callback = await world.browse(authUrl!, { account: 'carol' });
  await agent.mcp.submitOAuthCallback('docs', callback, { principal: 'carol' });
  for await (const event of agent.resume(parked.sessionId, { principal: 'carol' }))
    if (event.type === 'session.completed') console.log(`[carol, resumed] ${event.content}`);
} finally {
  await agent.close();
  await world.close();
}
