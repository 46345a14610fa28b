import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AuthorizationRequest } from '../../src/index.js';
import { fixturePath, stdioConfig } from '../support/mcp-fixtures.js';
import { collect } from '../support/run-helpers.js';

// The connection request every approver gets says what will run or reach: built where the
// connector authorizes mcp_connect:<server>, from the declaration, with names but never values
// of env variables, headers and tokens.

const ENV = 'CANARY-ENV-summary-41d7';
const HEADER = 'CANARY-HEADER-summary-9c02';
const BEARER = 'CANARY-BEARER-summary-e6a1';
const QUERY = 'CANARY-QUERY-summary-03fb';

describe('the connection request', () => {
  it('summarizes stdio and http declarations without a secret value', async () => {
    const asked: AuthorizationRequest[] = [];
    const agent = createAgent({
      model: scriptedModel([{ text: 'done' }]),
      mcp: { strictConfig: true, sandbox: { command: 'firejail', args: ['--quiet'] } },
      policy: {
        default: 'ask',
        approve: (request) => {
          asked.push(request);
          return false;
        },
      },
      mcpServers: {
        local: {
          ...stdioConfig('basic-server.mjs'),
          args: [fixturePath('basic-server.mjs'), '--verbose', `--token=${ENV}`],
          cwd: '/tmp',
          env: { SERVICE_TOKEN: ENV, LOG_LEVEL: 'debug' },
        },
        web: {
          type: 'http',
          url: `https://mcp.example.com/v1/mcp?key=${QUERY}`,
          headers: { 'X-Api-Key': HEADER },
          auth: { type: 'bearer', token: BEARER },
        },
      },
    });
    try {
      await collect(agent.run({ input: 'go', sessionId: 'summary' }));
      const byServer = Object.fromEntries(asked.map((r) => [r.server, r]));
      expect(Object.keys(byServer).sort()).toEqual(['local', 'web']);
      expect(byServer['local']).toMatchObject({ kind: 'connection', source: 'stdio' });
      expect(byServer['local']!.connection).toEqual({
        transport: 'stdio',
        configSource: 'options',
        fingerprint: expect.any(String),
        command: process.execPath,
        // as declared; only a value that is also a declared secret is masked
        args: [fixturePath('basic-server.mjs'), '--verbose', '--token=[redacted]'],
        cwd: '/tmp',
        envKeys: ['SERVICE_TOKEN', 'LOG_LEVEL'],
        sandbox: { command: 'firejail', args: ['--quiet'] },
      });
      expect(byServer['web']!.connection).toEqual({
        transport: 'http',
        configSource: 'options',
        fingerprint: expect.any(String),
        url: 'https://mcp.example.com/v1/mcp',
        headerNames: ['X-Api-Key'],
        auth: 'bearer',
      });
      const text = JSON.stringify(asked);
      for (const secret of [ENV, HEADER, BEARER, QUERY]) expect(text).not.toContain(secret);
    } finally {
      await agent.close();
    }
  });
});
