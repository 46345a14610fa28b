/**
 * Machine access (docs/guide/authentication.md), offline: a service signs in to a protected
 * MCP server with OAuth client credentials, no person and no browser. The authorization server
 * and the MCP server run on loopback (the test suite's OAuth world), where `reporting-bot` is a
 * pre-registered client with a secret.
 *
 *   npx tsx examples/authentication-machine.ts
 */
import { createAgent, scriptedModel } from '../src/index.js';
import { startOAuthWorld } from '../test/fixtures/oauth/index.js';

const world = await startOAuthWorld({
  clients: [
    {
      client_id: 'reporting-bot',
      client_secret: 'a-secret-from-your-vault',
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
    },
  ],
});

// #region machine
const agent = createAgent({
  model: scriptedModel([
    { toolCalls: [{ name: 'mcp__reports__whoami', arguments: {} }] },
    (req) => {
      const last = req.messages.at(-1);
      return { text: `Signed in: ${last?.role === 'tool' ? last.content : ''}` };
    },
  ]),
  mcpServers: { reports: { type: 'http', url: world.mcpUrl } },
  mcp: {
    strictConfig: true,
    oauth: {
      reports: {
        serverUrl: world.mcpUrl,
        allowedOrigins: [world.issuer],
        grant: 'client_credentials',
        clientId: 'reporting-bot',
        clientSecret: 'a-secret-from-your-vault', // process.env.REPORTS_SECRET in real life
        scope: 'mcp:read',
        expectedIssuer: world.issuer, // refuse any other authorization server
      },
    },
  },
  policy: { allow: ['mcp_connect:reports', 'mcp__reports__whoami'] },
});
// #endregion machine

try {
  const reply = await agent.send('Who am I on the reports server?');
  console.log(reply.text);
  const { name, status, era } = agent.mcp.list()[0]!; // statuses never hold a secret
  console.log(`[status] ${name}: ${status} (${era})`);
} finally {
  await agent.close();
  await world.close();
}
