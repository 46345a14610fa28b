import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { Usage } from '../../src/index.js';
import { everythingStdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// Connections belong to the root: a child's policy never decides mcp_connect (so a child's
// deny cannot mark a shared server disabled for the root), and naming one in a child's policy
// fails rather than being ignored. Sampling requests a server makes
// during a child's run pass the child's layer and then the root's; they are answered by the
// root's sampling handler (here the root's own model) and count toward the child's run.

const u = (n: number): Usage => ({ inputTokens: n, outputTokens: 2 * n, totalTokens: 3 * n });
const DOC = 'demo://resource/static/document/architecture.md';
const SAMPLE = {
  name: 'mcp__everything__trigger-sampling-request',
  arguments: { prompt: 'hello', maxTokens: 50 },
};

describe('child agents and MCP connections and sampling', () => {
  it("connects by the root's policy only; sampling passes both layers", async () => {
    const rootModel = scriptedModel([{ text: 'sampled', usage: u(100) }]);
    const root = createAgent({
      model: rootModel,
      mcp: { strictConfig: true, handlers: { sampling: 'agent' } },
      mcpServers: { everything: everythingStdioConfig() },
      policy: {
        allow: ['mcp_connect:everything', 'mcp__everything'],
        approve: (req) => req.capability === 'mcp_sampling:everything',
      },
    });
    const strict = root.child({
      model: scriptedModel([
        { toolCalls: [SAMPLE], usage: u(1) },
        { text: 'strict done', usage: u(0) },
      ]),
      policy: { deny: ['mcp_sampling:everything'] },
    });
    const open = root.child({
      model: scriptedModel([
        { toolCalls: [SAMPLE], usage: u(1) },
        { text: 'open done', usage: u(2) },
      ]),
    });
    try {
      // the first run of the family is the child's: it connects, by the root's policy
      const first = await collect(strict.run({ input: 'sample' }));
      expect(first.error).toBeUndefined();
      expect(root.mcp.list()[0]!.status).toBe('connected');
      expect(ofType(first.events, 'tool.completed')[0]).toMatchObject({ isError: true });
      expect(rootModel.requests).toHaveLength(0);

      const second = await collect(open.run({ input: 'sample' }));
      expect(second.error).toBeUndefined();
      expect(ofType(second.events, 'sampling.requested')).toHaveLength(1);
      expect(ofType(second.events, 'tool.completed')[0]).toMatchObject({ isError: false });
      expect(rootModel.requests).toHaveLength(1);
      // the sampled answer counts toward the child's run and the child's usage
      expect(ofType(second.events, 'session.completed')[0]!.usage).toEqual(u(103));
      expect(open.usage).toEqual(u(103));
      expect(strict.usage).toEqual(u(1));
      expect(root.usage).toEqual(u(104));
    } finally {
      await root.close();
    }
  }, 60_000);

  it('refuses connection patterns in a child policy, and reads resources only as the child may', async () => {
    const rootModel = scriptedModel([{ text: 'ok' }]);
    const root = createAgent({
      model: rootModel,
      mcp: { strictConfig: true, exposeResources: true },
      mcpServers: { everything: everythingStdioConfig() },
      policy: { default: 'allow', allow: ['mcp_connect:everything'] },
      mcpContext: { resources: [{ server: 'everything', uri: DOC }], maxBytes: 65536 },
    });
    for (const key of ['deny', 'allow', 'visibleTools'] as const)
      expect(() => root.child({ policy: { [key]: ['mcp_connect:*'] } })).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
      );
    const read = { name: 'mcp_resources_read', arguments: { server: 'everything', uri: DOC } };
    const deniedModel = scriptedModel([{ toolCalls: [read] }, { text: 'end' }]);
    const denied = root.child({
      model: deniedModel,
      policy: { deny: ['mcp__everything'], visibleTools: ['mcp_resources_*'] },
    });
    const allowedModel = scriptedModel([{ toolCalls: [read] }, { text: 'end' }]);
    const allowed = root.child({ model: allowedModel });
    try {
      const refused = await collect(denied.run({ input: 'read' }));
      expect(refused.error).toBeUndefined();
      expect(ofType(refused.events, 'tool.completed')[0]).toMatchObject({
        isError: true,
        content: expect.stringContaining('TOOL_DENIED'),
      });
      // the root's preloaded context is not inherited: nothing of the document reached the child
      expect(deniedModel.requests[0]!.messages).toHaveLength(1);
      const served = await collect(allowed.run({ input: 'read' }));
      expect(ofType(served.events, 'tool.completed')[0]).toMatchObject({ isError: false });
      // the root's own runs do preload it
      expect((await collect(root.run({ input: 'hi' }))).error).toBeUndefined();
      expect(rootModel.requests[0]!.messages.length).toBeGreaterThan(1);
      expect(JSON.stringify(rootModel.requests[0]!.messages)).toContain('architecture');
    } finally {
      await root.close();
    }
  }, 60_000);
});
