import { describe, expect, it } from 'vitest';
import { createAgent, MemorySessionStore, scriptedModel } from '../../src/index.js';
import type { AgentEvent } from '../../src/index.js';
import { startDualHttpServer } from '../fixtures/mcp/http-servers.mjs';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect } from '../support/run-helpers.js';

// Secrets put in headers, env and bearer tokens never appear in any event, list() snapshot,
// error message or stored session, including when connections fail.

const CANARIES = [
  'CANARY-HEADER-7f3a',
  'CANARY-BEARER-91bc',
  'CANARY-ENV-5d20',
  'CANARY-QUERY-c4e8',
  'CANARY-DEAD-0b6e',
];

describe('secrets never leak', () => {
  it('keeps header, env, bearer and URL secrets out of events, status, errors and sessions', async () => {
    const dual = await startDualHttpServer();
    const store = new MemorySessionStore();
    const observed: AgentEvent[] = [];
    const errors: unknown[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'mcp__web__echo', arguments: { text: 'hi' } },
          { name: 'mcp__local__echo', arguments: { text: 'yo' } },
        ],
      },
      { text: 'done' },
    ]);
    const agent = createAgent({
      model,
      sessionStore: store,
      mcp: { strictConfig: true },
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
      observability: { onEvent: (e) => void observed.push(e), onError: (e) => void errors.push(e) },
      mcpServers: {
        web: {
          type: 'http',
          url: `${dual.url}?key=${CANARIES[3]}`,
          headers: { 'X-Api-Key': CANARIES[0]! },
          auth: { type: 'bearer', token: CANARIES[1]! },
        },
        local: { ...stdioConfig('basic-server.mjs'), env: { SERVICE_TOKEN: CANARIES[2]! } },
        dead: {
          type: 'http',
          url: 'http://127.0.0.1:9/mcp',
          auth: { type: 'bearer', token: CANARIES[4]! },
        },
        broken: { ...stdioConfig('fail-start-server.mjs'), env: { OTHER: CANARIES[2]! } },
      },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'go', sessionId: 'canary' }));
      expect(error).toBeUndefined();
      const list = agent.mcp.list();
      expect(list.find((s) => s.name === 'web')?.status).toBe('connected');
      expect(list.find((s) => s.name === 'dead')?.status).toBe('failed');
      const everything = JSON.stringify({
        events: events.map((e) => ({
          ...e,
          error: e.type === 'session.failed' ? e.error.toJSON() : undefined,
        })),
        observed,
        errors: errors.map(String),
        list,
        session: await store.get('canary'),
        statusErrors: list.map((s) => s.error?.message),
      });
      for (const canary of CANARIES) expect(everything, canary).not.toContain(canary);
      const failure = await agent.mcp
        .register('later', {
          type: 'http',
          url: 'http://127.0.0.1:9/mcp',
          headers: { 'X-Key': CANARIES[0]! },
        })
        .catch((e: Error) => e);
      expect(failure).toMatchObject({ code: 'MCP_CONNECTION_FAILED' });
      expect(JSON.stringify({ message: (failure as Error).message, json: failure })).not.toContain(
        CANARIES[0],
      );
    } finally {
      await agent.close();
      await dual.close();
    }
  });
});
