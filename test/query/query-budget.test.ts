/**
 * `maxBudgetUsd` (the reference SDKs' budget) through `query()`: `limits.maxCostUsd` priced by
 * `pricing`, the turn that spends it ends with the `error_max_budget_usd` result and a
 * `total_cost_usd` from the prices (not a literal 0); a turn within it reports its cost. A
 * scripted model with fixed token counts stands in for the vendor, with a real in-process
 * server for the tool calls.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSdkMcpServer, scriptedModel, sdkTool } from '../../src/index.js';
import type { ScriptedTurn } from '../../src/index.js';
import { query } from '../../src/query/index.js';
import type { QueryMessage, QueryOptions, QueryResultMessage } from '../../src/query/index.js';

const lookup = sdkTool('lookup', 'Finds a city.', { q: z.string() }, async ({ q }) => ({
  content: [{ type: 'text', text: `${q}: 2102650 people` }],
}));
const atlas = createSdkMcpServer({ name: 'atlas', tools: [lookup] });
// $2 in, $8 out per million tokens: a turn of 1000 in and 100 out costs $0.0028
const pricing = { scripted: { inputPerMTok: 2, outputPerMTok: 8 } };
const turn = { inputTokens: 1000, outputTokens: 100, totalTokens: 1100 };
const lookupTurn: ScriptedTurn = {
  toolCalls: [{ name: 'mcp__atlas__lookup', arguments: { q: 'Paris' } }],
  usage: turn,
};

async function run(turns: ScriptedTurn[], options: Omit<QueryOptions, 'model'>) {
  const model = scriptedModel(turns);
  const q = query({
    prompt: 'How many people live in Paris?',
    options: {
      model,
      strictMcpConfig: true,
      mcpServers: { atlas },
      allowedTools: ['mcp__atlas__lookup'],
      pricing,
      ...options,
    },
  });
  const messages: QueryMessage[] = [];
  for await (const m of q) messages.push(m);
  const results = messages.filter((m): m is QueryResultMessage => m.type === 'result');
  expect(results).toHaveLength(1);
  return { result: results[0]!, model };
}

describe('query() with maxBudgetUsd', () => {
  it('ends the turn that spends it with error_max_budget_usd and what it cost', async () => {
    const { result, model } = await run(
      [lookupTurn, lookupTurn, lookupTurn, { text: 'never asked' }],
      { maxBudgetUsd: 0.005 },
    );
    // $0.0028 after one turn, $0.0056 after two: the second turn's lookup never ran
    expect(model.requests).toHaveLength(2);
    expect(result).toMatchObject({
      subtype: 'error_max_budget_usd',
      is_error: true,
      error_code: 'BUDGET_EXHAUSTED',
      num_turns: 2,
      total_cost_usd: 0.0056,
    });
  });

  it('reports the cost of a turn that ends within it', async () => {
    const { result } = await run([lookupTurn, { text: 'About 2.1 million.', usage: turn }], {
      maxBudgetUsd: 1,
    });
    expect(result).toMatchObject({ subtype: 'success', total_cost_usd: 0.0056 });
  });

  it('refuses a budget that is not a positive number, or one without prices', () => {
    for (const maxBudgetUsd of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() =>
        query({ prompt: 'x', options: { model: scriptedModel([]), pricing, maxBudgetUsd } }),
      ).toThrow(/maxBudgetUsd/);
    expect(() =>
      query({ prompt: 'x', options: { model: scriptedModel([]), maxBudgetUsd: 1 } }),
    ).toThrow(/pricing/);
  });
});
