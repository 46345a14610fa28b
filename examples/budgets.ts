/**
 * Budgets (docs/guide/budgets.md), offline: a dollar budget priced by `pricing`, shared by a
 * run and the run it delegates to; a warning at 80 %; what `'fail'` and `'finish'` do once it
 * is spent; the budget as the session keeps it.
 *
 *   npx tsx examples/budgets.ts
 */
import { z } from 'zod';
import { createAgent, MusterError, scriptedModel, tool } from '../src/index.js';
import type { AgentEvent, ScriptedTurnSpec } from '../src/index.js';

const search = tool({
  name: 'search',
  description: 'Searches the docs.',
  input: z.object({ q: z.string() }),
  execute: ({ q }) => `3 pages about ${q}`,
});

// every scripted turn reads 2,000 tokens and writes 200: at the prices below, $0.00112
const usage = { inputTokens: 2000, outputTokens: 200, totalTokens: 2200 };
const searching: ScriptedTurnSpec = {
  toolCalls: [{ name: 'search', arguments: { q: 'budgets' } }],
  usage,
};

const show = (e: AgentEvent) => {
  if (e.type === 'budget.warning' || e.type === 'budget.exhausted')
    console.log(`[${e.type}] ${e.limit}: $${e.spent} of $${e.max}`);
};
const agent = createAgent({
  model: scriptedModel([searching, searching, searching, { text: 'never asked', usage }]),
  modelName: 'small-model',
  pricing: { 'small-model': { inputPerMTok: 0.4, outputPerMTok: 1.6 } },
  tools: [search],
  policy: { allow: ['search', 'researcher'] },
  observability: { onEvent: show },
});

try {
  // 'fail' (the default): the third turn crosses $0.003, its search never runs
  try {
    await agent.send('Research budgets.', { limits: { maxCostUsd: 0.003 } });
  } catch (err) {
    if (!MusterError.isInstance(err)) throw err;
    console.log(`[fail] ${err.code}: spent $${String(err.details.spent)}`);
  }

  // 'finish': a lead delegates to a researcher; both spend the lead's budget, and once it is
  // spent the lead answers in one last turn, offered no tools
  const researcher = agent.child({
    modelName: 'small-model', // a child with a model of its own names it: it is priced by name
    model: scriptedModel([searching, { text: 'Budgets count every run.', usage }]),
  });
  const lead = agent.child({
    modelName: 'small-model',
    model: scriptedModel([
      { toolCalls: [{ name: 'researcher', arguments: { prompt: 'How do budgets work?' } }], usage },
      searching,
      { text: 'Budgets count delegated runs too.', usage },
    ]),
    tools: [researcher.asTool({ name: 'researcher', description: 'Researches a question.' })],
  });
  const reply = await lead.send('Explain budgets.', {
    sessionId: 'budget-demo',
    limits: { maxCostUsd: 0.004, onBudgetExhausted: 'finish' },
  });
  console.log(`[finish] ${reply.text} (cost $${reply.usage.costUsd})`);
  const stored = await agent.sessions.get('budget-demo');
  console.log(`[stored] ${JSON.stringify(stored?.budget?.spent)}`);
} finally {
  await agent.close();
}
