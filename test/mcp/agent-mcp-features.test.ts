import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentEvent, AuthorizationRequest, ModelRequest } from '../../src/index.js';
import { everythingStdioConfig, stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// The agent side of MCP beyond tools, against server-everything and the features fixture
// over real stdio: sampling by the agent's own model behind approval, elicitation hooks and
// URL-required errors, mcpContext, exposeResources, agent.mcp operations, and canaries.

const tool = (name: string) => `mcp__everything__${name}`;
const lastToolText = (req: ModelRequest) =>
  JSON.stringify([...req.messages].reverse().find((m) => m.role === 'tool'));

describe('agent MCP features', () => {
  it("sampling 'agent': the scripted model answers behind approval, usage counts toward the run", async () => {
    const approvals: AuthorizationRequest[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          {
            name: tool('trigger-sampling-request'),
            arguments: { prompt: 'canary-prompt-7', maxTokens: 5000 },
          },
        ],
      },
      { text: 'sampled-by-agent', usage: { inputTokens: 11, outputTokens: 13, totalTokens: 24 } },
      (req) => ({
        text: `final ${lastToolText(req).includes('sampled-by-agent')}`,
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      }),
    ]);
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: { strictConfig: true, handlers: { sampling: 'agent' }, samplingMaxTokens: 64 },
      mcpServers: { everything: everythingStdioConfig() },
      policy: {
        allow: ['mcp_connect:everything', 'mcp__everything'],
        approve: (req) => {
          approvals.push(req);
          return req.capability === 'mcp_sampling:everything';
        },
      },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'sample please' }));
      expect(error).toBeUndefined();
      expect(approvals).toHaveLength(1);
      expect(approvals[0]).toMatchObject({ kind: 'sampling', server: 'everything' });
      expect(JSON.stringify(approvals[0]!.arguments)).toContain('canary-prompt-7');
      expect(model.requests[1]!.maxOutputTokens).toBe(64);
      const sampling = ofType(events, 'sampling.requested');
      expect(sampling).toHaveLength(1);
      expect(sampling[0]).toMatchObject({ server: 'everything', handler: 'agent', maxTokens: 64 });
      expect(sampling[0]!.callId).toBe(ofType(events, 'tool.called')[0]!.callId);
      const done = ofType(events, 'session.completed')[0]!;
      expect(done.content).toBe('final true');
      expect(done.usage.totalTokens).toBeGreaterThanOrEqual(24 + 2);
      // the sampled answer reaches the server only: no event carries it (the model's own
      // tool arguments and transcript events aside)
      const text = JSON.stringify(
        events.filter(
          (e) => !['tool.completed', 'model.completed', 'model.delta'].includes(e.type),
        ),
      );
      expect(text).not.toContain('sampled-by-agent');
      expect(JSON.stringify(sampling)).not.toContain('canary-prompt-7');
    } finally {
      await agent.close();
    }
  }, 30_000);

  it("sampling 'agent' is denied without an approver, and the run goes on", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { name: tool('trigger-sampling-request'), arguments: { prompt: 'x', maxTokens: 10 } },
        ],
      },
      (req) => ({ text: lastToolText(req) }),
    ]);
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: { strictConfig: true, handlers: { sampling: 'agent' } },
      mcpServers: { everything: everythingStdioConfig() },
      policy: { allow: ['mcp_connect:everything', 'mcp__everything'] },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'sample please' }));
      expect(error).toBeUndefined();
      expect(model.requests).toHaveLength(2);
      const done = ofType(events, 'tool.completed')[0]!;
      expect(done.content).toMatch(/not authorized|mcp_sampling/);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('elicitation hooks: onElicitation answers first, onElicitationResult may block', async () => {
    const handled: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: tool('trigger-elicitation-request'), arguments: {} }] },
      { toolCalls: [{ name: tool('trigger-elicitation-request'), arguments: {} }] },
      { text: 'done' },
    ]);
    let round = 0;
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: {
        strictConfig: true,
        handlers: {
          elicitation: async () => {
            handled.push('handler');
            return { action: 'accept', content: { name: 'from-handler' } };
          },
        },
      },
      hooks: {
        onElicitation: () =>
          ++round === 1 ? { action: 'accept', content: { name: 'canary-answer-9' } } : undefined,
        onElicitationResult: (_req, answer) => (round === 2 ? false : answer),
      },
      mcpServers: { everything: everythingStdioConfig() },
      policy: { allow: ['mcp_connect:everything', 'mcp__everything'] },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'ask me' }));
      expect(error).toBeUndefined();
      const results = ofType(events, 'tool.completed');
      expect(results[0]!.content).toContain('canary-answer-9');
      expect(results[1]!.content).toMatch(/declin/i);
      expect(handled).toEqual(['handler']);
      const requested = ofType(events, 'elicitation.requested');
      expect(requested.map((e) => e.callId)).toEqual(
        ofType(events, 'tool.called').map((c) => c.callId),
      );
      expect(ofType(events, 'elicitation.completed').map((e) => e.action)).toEqual([
        'accept',
        'decline',
      ]);
      const canary = JSON.stringify(
        events.filter((e) => e.type !== 'tool.completed' && e.type !== 'model.completed'),
      );
      expect(canary).not.toContain('canary-answer-9');
      expect(JSON.stringify(agent.mcp.list())).not.toContain('canary-answer-9');
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('a -32042 error hands its URL to the elicitation handler and tells the model', async () => {
    const urls: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__features__needs-url', arguments: {} }] },
      (req) => ({ text: lastToolText(req) }),
    ]);
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: {
        strictConfig: true,
        protocol: { mode: 'legacy' },
        handlers: {
          elicitation: async (req) => {
            urls.push(req.url ?? '');
            return { action: 'accept' };
          },
        },
      },
      mcpServers: { features: stdioConfig('features-server.mjs') },
      policy: { allow: ['mcp_connect:features', 'mcp__features'] },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'go' }));
      expect(error).toBeUndefined();
      expect(urls).toEqual(['https://example.com/sign-in']);
      const done = ofType(events, 'tool.completed')[0]!;
      expect(done.isError).toBe(true);
      expect(done.content).toContain('URL_ELICITATION_REQUIRED');
      expect(done.content).toContain('accept');
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('mcpContext preloads resources and prompts as untrusted content, and over maxBytes the model gets nothing', async () => {
    const model = scriptedModel([{ text: 'ok' }]);
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: { strictConfig: true },
      mcpServers: { everything: everythingStdioConfig() },
      policy: { allow: ['mcp_connect:everything', 'mcp__everything'] },
      mcpContext: {
        maxBytes: 100_000,
        resources: [{ server: 'everything', uri: 'demo://resource/dynamic/text/5' }],
        prompts: [{ server: 'everything', name: 'args-prompt', arguments: { city: 'Oslo' } }],
      },
    });
    try {
      const { error } = await collect(agent.run({ input: 'hi' }));
      expect(error).toBeUndefined();
      const sent = JSON.stringify(model.requests[0]!.messages);
      expect(sent).toContain('untrusted-mcp-context');
      expect(sent).toContain('Oslo');
      expect(model.requests[0]!.system ?? '').not.toContain('untrusted');
      // server instructions are exposed to the host, never put into what the model sees
      const instructions = agent.mcp.getConnection('everything').instructions ?? '';
      expect(instructions.length).toBeGreaterThan(20);
      expect(JSON.stringify(model.requests[0])).not.toContain(instructions.slice(0, 40));

      const small = scriptedModel([{ text: 'never' }]);
      const tight = createAgent({
        model: small,
        modelName: 'scripted',
        mcp: { strictConfig: true },
        mcpServers: { everything: everythingStdioConfig() },
        policy: { allow: ['mcp_connect:everything', 'mcp__everything'] },
      });
      try {
        const { error: err } = await collect(
          tight.run({
            input: 'hi',
            mcpContext: {
              maxBytes: 8,
              resources: [{ server: 'everything', uri: 'demo://resource/dynamic/text/5' }],
            },
          }),
        );
        expect(err).toMatchObject({ code: 'AGENT_LIMIT_EXCEEDED' });
        expect((err as Error).message).toContain('mcpContext.maxBytes');
        expect(small.requests).toHaveLength(0);
      } finally {
        await tight.close();
      }
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('exposeResources lets the model list and read resources through the pipeline; agent.mcp runs operations', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp_resources_list', arguments: { server: 'everything' } }] },
      {
        toolCalls: [
          {
            name: 'mcp_resources_read',
            arguments: { server: 'everything', uri: 'demo://resource/dynamic/text/2' },
          },
        ],
      },
      (req) => ({ text: lastToolText(req) }),
    ]);
    const events: AgentEvent[] = [];
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: { strictConfig: true, exposeResources: true },
      mcpServers: { everything: everythingStdioConfig() },
      policy: { allow: ['mcp_connect:everything', 'mcp__everything', 'mcp_resources_*'] },
      observability: { onEvent: (e) => events.push(e) },
    });
    try {
      const { events: ran, error } = await collect(agent.run({ input: 'read' }));
      expect(error).toBeUndefined();
      const done = ofType(ran, 'tool.completed');
      expect(done.map((d) => d.isError)).toEqual([false, false]);
      expect(done[0]!.content).toContain('demo://resource/');
      expect(done[1]!.content).toMatch(/Resource 2|text/i);

      const templates = await agent.mcp.listResourceTemplates('everything');
      expect(templates.resourceTemplates.length).toBe(2);
      await agent.mcp.ping('everything');
      expect(agent.mcp.getConnection('everything').status).toBe('connected');
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('agent.mcp operations are authorized as mcp_connect:<server>', async () => {
    const agent = createAgent({
      mcp: { strictConfig: true },
      mcpServers: { everything: everythingStdioConfig() },
      policy: { default: 'deny' },
    });
    try {
      const err = await agent.mcp.listResources('everything').catch((e: unknown) => e);
      // the refusal itself, not a misleading "not connected"
      expect(err).toMatchObject({ code: 'TOOL_DENIED', details: { server: 'everything' } });
      expect(agent.mcp.getConnection('everything')).toMatchObject({
        status: 'disabled',
        error: { code: 'TOOL_DENIED' },
      });
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('exposed resource tools are denied by policy like any tool', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp_resources_list', arguments: {} }] },
      { text: 'end' },
    ]);
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: { strictConfig: true, exposeResources: true },
      mcpServers: { everything: everythingStdioConfig() },
      policy: { allow: ['mcp_connect:everything'], default: 'deny' },
    });
    try {
      const { events } = await collect(agent.run({ input: 'read' }));
      expect(ofType(events, 'tool.completed')[0]).toMatchObject({ executed: false });
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('exposed resource tools cannot reach a server the policy denies', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          {
            name: 'mcp_resources_read',
            arguments: {
              server: 'everything',
              uri: 'demo://resource/static/document/architecture.md',
            },
          },
          { id: 'list', name: 'mcp_resources_list', arguments: {} },
        ],
      },
      { text: 'end' },
    ]);
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: { strictConfig: true, exposeResources: true },
      mcpServers: { everything: everythingStdioConfig() },
      policy: {
        allow: ['mcp_connect:everything', 'mcp_resources_read', 'mcp_resources_list'],
        deny: ['mcp__everything'],
      },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'read' }));
      expect(error).toBeUndefined();
      const [read, list] = ofType(events, 'tool.completed');
      expect(read).toMatchObject({ isError: true });
      expect(read!.content).toContain('TOOL_DENIED');
      expect(list).toMatchObject({ isError: false, content: '[]' });
    } finally {
      await agent.close();
    }
  }, 30_000);
});
