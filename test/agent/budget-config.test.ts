import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentOptions, Limits } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect } from '../support/run-helpers.js';

// Bad budgets and prices (SPEC 15.4) are typed INVALID_CONFIGURATION, at construction or when
// a run starts, with nothing sent (no model request, no MCP server started: counting-server.mjs
// logs each process start) and nothing written (a real SQLite file stays without the session).

const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };

describe('bad budgets and prices', () => {
  const dir = mkdtempSync(join(tmpdir(), 'muster-budget-config-'));
  const log = join(dir, 'servers.log');
  const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });

  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bad: [string, Partial<Limits> | Record<string, unknown>][] = [
    ['a negative budget', { maxCostUsd: -0.5 }],
    ['a zero budget', { maxCostUsd: 0 }],
    ['a NaN budget', { maxCostUsd: Number.NaN }],
    ['a budget under a picodollar', { maxCostUsd: 4e-13 }],
    ['an infinite budget', { maxCostUsd: Number.POSITIVE_INFINITY }],
    ['a zero token budget', { maxTotalTokens: 0 }],
    ['a fractional maxToolCalls', { maxToolCalls: 2.5 }],
    ['a negative maxDurationMs', { maxDurationMs: -1 }],
    ['an unknown onBudgetExhausted', { onBudgetExhausted: 'explode' }],
  ];

  function agentWith(options: Partial<AgentOptions> = {}) {
    const model = scriptedModel([{ text: 'ran' }]);
    const agent = createAgent({
      model,
      modelName: 'priced',
      pricing: { priced: PRICE },
      sessionStore: store,
      mcp: { strictConfig: true },
      mcpServers: { c: stdioConfig('counting-server.mjs', ['--name=c', `--log=${log}`]) },
      policy: { allow: ['mcp_connect:c'] },
      ...options,
    });
    return { agent, model };
  }

  /** Nothing was sent or written for `sessionId`: no model request, no server, no session. */
  async function nothingHappened(model: { requests: readonly unknown[] }, sessionId: string) {
    expect(model.requests).toHaveLength(0);
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('');
    expect(await store.get(sessionId)).toBeUndefined();
  }

  it.each(bad)('%s is refused at construction, for the agent and for a child', (_, limits) => {
    const construct = () => agentWith({ limits: limits as Partial<Limits> });
    expect(construct).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    const { agent } = agentWith();
    expect(() => agent.child({ limits: limits as Partial<Limits> })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });

  it.each(bad)(
    '%s is refused when a run starts, before anything is sent or written',
    async (_, limits) => {
      const { agent, model } = agentWith();
      try {
        const sessionId = `bad-${Object.keys(limits)[0]}`;
        const { events, error } = await collect(
          agent.run({ input: 'x', sessionId, limits: limits as Partial<Limits> }),
        );
        expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION' });
        expect(error!.message).toContain(`run limits.${Object.keys(limits)[0]}`);
        expect(events.map((e) => e.type)).toEqual(['session.failed']);
        await nothingHappened(model, sessionId);
      } finally {
        await agent.close();
      }
    },
  );

  it.each([
    ['a negative price', { m: { inputPerMTok: -3, outputPerMTok: 15 } }],
    ['a NaN price', { m: { inputPerMTok: 3, outputPerMTok: Number.NaN } }],
    ['a price without its output', { m: { inputPerMTok: 3 } }],
    ['pricing that is not an object', 'cheap'],
  ])('%s is refused at construction', (_, pricing) => {
    expect(() => agentWith({ pricing: pricing as AgentOptions['pricing'] })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });

  it('maxCostUsd with no pricing at all is refused at construction', () => {
    expect(() => createAgent({ model: scriptedModel([]), limits: { maxCostUsd: 1 } })).toThrow(
      /maxCostUsd is set, but the agent has no pricing/,
    );
  });

  it("maxCostUsd for a run whose model has no price is refused before its first model call (the run's model name)", async () => {
    const { agent, model } = agentWith({ limits: { maxCostUsd: 1 } });
    try {
      const { error } = await collect(
        agent.run({ input: 'x', sessionId: 'unpriced-1', modelName: 'unpriced' }),
      );
      expect(error).toMatchObject({
        code: 'INVALID_CONFIGURATION',
        details: { option: 'pricing', modelName: 'unpriced' },
      });
      expect(error!.message).toContain("no price for the model 'unpriced'");
      await nothingHappened(model, 'unpriced-1');
      // the same agent runs its priced model
      const reply = await agent.send('x', { sessionId: 'priced-1' });
      expect(reply.text).toBe('ran');
      expect(reply.usage.costUsd).toBeGreaterThan(0);
    } finally {
      await agent.close();
    }
  });

  it("maxCostUsd is refused when the agent's model would answer sampling unpriced, whatever model the run uses", async () => {
    const { agent, model } = agentWith({
      modelName: 'sampler',
      mcp: { strictConfig: true, handlers: { sampling: 'agent' } },
    });
    const started = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
    const before = started();
    try {
      // the run's model has a price; the agent's model, which answers sampling, has none
      const { error } = await collect(
        agent.run({
          input: 'x',
          sessionId: 'unpriced-sampling-1',
          modelName: 'priced',
          limits: { maxCostUsd: 1 },
        }),
      );
      expect(error).toMatchObject({
        code: 'INVALID_CONFIGURATION',
        details: { option: 'pricing', modelName: 'sampler' },
      });
      expect(error!.message).toContain("answered by the agent's model 'sampler'");
      // nothing sent, no server started, nothing written
      expect(model.requests).toHaveLength(0);
      expect(started()).toBe(before);
      expect(await store.get('unpriced-sampling-1')).toBeUndefined();
      // without a dollar budget the run goes on
      const reply = await agent.send('x', {
        sessionId: 'unpriced-sampling-2',
        modelName: 'priced',
      });
      expect(reply.text).toBe('ran');
    } finally {
      await agent.close();
    }
  });
});
