import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentEvent, ModelRequest, ScriptedTurnSpec } from '../../src/index.js';
import type { McpRequestOrigin } from '../../src/mcp/mcp-entry.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// Attribution of a server's own requests (elicitation here) when runs of different sessions
// have calls in flight on the same server: it must fail closed, never reach the wrong run.

const input = (req: ModelRequest) => JSON.stringify(req.messages.find((m) => m.role === 'user'));
type Step = (req: ModelRequest) => ScriptedTurnSpec;
const stepWith =
  (other: Step): Step =>
  (req) => {
    if (req.messages.some((m) => m.role === 'tool')) return { text: 'done' };
    return input(req).includes('run-a')
      ? { toolCalls: [{ name: 'mcp__features__slow-count', arguments: { ms: 1500 } }] }
      : other(req);
  };
const step = stepWith(() => ({
  toolCalls: [{ name: 'mcp__features__ask-when-busy', arguments: {} }],
}));

describe('server request attribution', () => {
  it('a request during calls of two sessions on one server goes to neither run', async () => {
    const origins: McpRequestOrigin[] = [];
    const background: AgentEvent[] = [];
    const agent = createAgent({
      model: scriptedModel([step, step, step, step]),
      modelName: 'scripted',
      mcp: {
        strictConfig: true,
        protocol: { mode: 'legacy' },
        handlers: {
          elicitation: async (_req, origin) => {
            origins.push(origin);
            return { action: 'decline' };
          },
        },
      },
      mcpServers: { features: stdioConfig('features-server.mjs') },
      policy: { allow: ['mcp_connect:features', 'mcp__features'] },
      observability: { onEvent: (e) => background.push(e) },
    });
    try {
      await agent.initialize();
      const [b, a] = await Promise.all([
        collect(agent.run({ input: 'run-b', sessionId: 'session-b' })),
        collect(agent.run({ input: 'run-a', sessionId: 'session-a' })),
      ]);
      expect(a.error).toBeUndefined();
      expect(b.error).toBeUndefined();
      expect(origins).toHaveLength(1);
      expect(origins[0]!.sessionId).toBeUndefined();
      expect(origins[0]!.runId).toBeUndefined();
      expect(ofType(a.events, 'elicitation.requested')).toEqual([]);
      expect(ofType(b.events, 'elicitation.requested')).toEqual([]);
      expect(ofType(b.events, 'tool.completed')[0]!.content).toContain('busy answer: decline');
    } finally {
      await agent.close();
    }
  }, 30_000);

  it("a -32042 answer is attributed to the caller's own run, whatever else is in flight", async () => {
    const origins: McpRequestOrigin[] = [];
    const urlStep = stepWith(() => ({
      toolCalls: [{ name: 'mcp__features__needs-url', arguments: { whenBusy: true } }],
    }));
    const agent = createAgent({
      model: scriptedModel([urlStep, urlStep, urlStep, urlStep]),
      modelName: 'scripted',
      mcp: {
        strictConfig: true,
        protocol: { mode: 'legacy' },
        handlers: {
          elicitation: async (_req, origin) => {
            origins.push(origin);
            return { action: 'accept' };
          },
        },
      },
      mcpServers: { features: stdioConfig('features-server.mjs') },
      policy: { allow: ['mcp_connect:features', 'mcp__features'] },
    });
    try {
      await agent.initialize();
      const [b, a] = await Promise.all([
        collect(agent.run({ input: 'run-b', sessionId: 'session-b' })),
        collect(agent.run({ input: 'run-a', sessionId: 'session-a' })),
      ]);
      expect(a.error).toBeUndefined();
      expect(b.error).toBeUndefined();
      expect(origins.map((o) => o.sessionId)).toEqual(['session-b']);
      expect(ofType(b.events, 'elicitation.requested')).toHaveLength(1);
      expect(ofType(a.events, 'elicitation.requested')).toEqual([]);
    } finally {
      await agent.close();
    }
  }, 30_000);
});
