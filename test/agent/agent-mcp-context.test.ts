import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { ModelMessage, ModelRequest } from '../../src/index.js';
import { everythingStdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// The preloaded mcpContext against server-everything over real stdio: where it goes in each
// request, that it is never stored, and that the user's request survives context pressure.

const MARK = 'untrusted-mcp-context';
const text = (m: ModelMessage) => JSON.stringify(m);
const isPreload = (m: ModelMessage) => m.role === 'user' && text(m).includes(MARK);
const lastUser = (req: ModelRequest) => [...req.messages].reverse().find((m) => m.role === 'user');

const fetchPage = tool({
  name: 'fetch_page',
  description: 'Returns a long page.',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => `page ${n}: ${'lorem ipsum '.repeat(250)}`,
});

function agentWith(model: ReturnType<typeof scriptedModel>, maxTokens?: number) {
  return createAgent({
    model,
    modelName: 'scripted',
    tools: [fetchPage],
    mcp: { strictConfig: true },
    mcpServers: { everything: everythingStdioConfig() },
    policy: { allow: ['mcp_connect:everything', 'fetch_page'] },
    ...(maxTokens !== undefined ? { context: { maxTokens } } : {}),
    mcpContext: {
      maxBytes: 100_000,
      resources: [{ server: 'everything', uri: 'demo://resource/dynamic/text/5' }],
    },
  });
}

describe('agent mcpContext preload', () => {
  it('is sent just before the user request in every request of the run and never stored', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'fetch_page', arguments: { n: 1 } }] },
      { text: 'first answer' },
      { text: 'second answer' },
    ]);
    const agent = agentWith(model);
    try {
      const sessionId = 'preload-order';
      for (const input of ['first request', 'second request']) {
        const { error } = await collect(agent.run({ input, sessionId }));
        expect(error).toBeUndefined();
      }
      expect(model.requests).toHaveLength(3);
      const inputs = ['first request', 'first request', 'second request'];
      for (const [i, req] of model.requests.entries()) {
        // the user's request is the newest user message; exactly one preload, right before it
        expect(text(lastUser(req)!)).toContain(inputs[i]!);
        const at = req.messages.indexOf(lastUser(req)!);
        expect(isPreload(req.messages[at - 1]!)).toBe(true);
        expect(req.messages.filter(isPreload)).toHaveLength(1);
      }
      // in the second run the first run's preload is not sent again: it was never stored
      const stored = (await agent.sessions.get(sessionId))!.messages;
      expect(stored.filter(isPreload)).toHaveLength(0);
      expect(stored.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
        'assistant',
      ]);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it("under context pressure the user's request is sent with the preload, older turns are left out", async () => {
    const model = scriptedModel([
      { text: `first answer ${'x'.repeat(400)}` },
      { text: 'second answer' },
    ]);
    const agent = agentWith(model, 1_000);
    try {
      const sessionId = 'preload-pressure';
      const first = await collect(
        agent.run({ input: `first request ${'lorem ipsum '.repeat(250)}`, sessionId }),
      );
      expect(first.error).toBeUndefined();
      expect(ofType(first.events, 'context.compacted')).toHaveLength(0);
      const { events, error } = await collect(
        agent.run({ input: 'second request, the real one', sessionId }),
      );
      expect(error).toBeUndefined();
      expect(ofType(events, 'context.compacted')).toHaveLength(1);
      const last = model.requests.at(-1)!;
      expect(JSON.stringify(last.messages)).not.toContain('lorem ipsum');
      expect(last.messages.map((m) => (isPreload(m) ? 'preload' : m.role))).toEqual([
        'preload',
        'user',
      ]);
      expect(text(last.messages[1]!)).toContain('second request, the real one');
    } finally {
      await agent.close();
    }
  }, 30_000);
});
