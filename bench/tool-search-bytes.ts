import { createAgent, scriptedModel } from '../src/index.js';
import type { AgentEvent, ModelRequest, ScriptedTurn } from '../src/index.js';
import { catalogServers, catalogSize } from '../test/support/catalog-fixtures.js';

/** Bytes of tool definitions each model request of one run carried. */
export interface ToolSearchBytesResult {
  readonly servers: number;
  readonly tools: number;
  /** Per turn without search (`mcp.toolSearch: false`): every definition, every turn. */
  readonly withoutSearch: readonly number[];
  /** Per turn with search (`mcp.toolSearch: 'auto'`, over the default budget). */
  readonly withSearch: readonly number[];
  /** Tools sent per turn with search. */
  readonly withSearchTools: readonly number[];
  /** The first `tool_search` call of the run (builds the index), in ms. */
  readonly firstSearchMs: number;
  /** A later `tool_search` call, in ms. */
  readonly laterSearchMs: number;
  readonly seconds: number;
}

const QUERY = 'give the customer their money back for a charge';
const FOUND = 'mcp__billing__issue_refund';
const REFUND_ARGS = { payment_id: 'pay_1', reason: 'damaged' };

const toolBytes = (req: ModelRequest) => Buffer.byteLength(JSON.stringify(req.tools), 'utf8');

async function runOnce(search: boolean, turns: readonly ScriptedTurn[]) {
  const model = scriptedModel(turns);
  const agent = createAgent({
    model,
    modelName: 'scripted',
    mcpServers: catalogServers(),
    mcp: { strictConfig: true, toolSearch: search ? 'auto' : false },
    policy: { default: 'allow' },
  });
  const events: AgentEvent[] = [];
  try {
    for await (const ev of agent.run({ input: 'refund pay_1' })) events.push(ev);
  } finally {
    await agent.close();
  }
  return { requests: model.requests, events };
}

/**
 * A four-turn run over the 2,000-tool catalog (10 stdio servers) with and without tool
 * search: search (with), search again, call the found tool, answer. Without search the same
 * run calls the tool directly; every request carries all 2,000 definitions.
 */
export async function measureToolSearchBytes(): Promise<ToolSearchBytesResult> {
  const started = performance.now();
  const [withSearch, without] = await Promise.all([
    runOnce(true, [
      { toolCalls: [{ name: 'tool_search', arguments: { query: QUERY } }] },
      { toolCalls: [{ name: 'tool_search', arguments: { query: 'send a mail later' } }] },
      { toolCalls: [{ name: FOUND, arguments: REFUND_ARGS }] },
      { text: 'refunded' },
    ]),
    runOnce(false, [
      { toolCalls: [{ name: FOUND, arguments: REFUND_ARGS }] },
      { toolCalls: [{ name: FOUND, arguments: REFUND_ARGS }] },
      { toolCalls: [{ name: FOUND, arguments: REFUND_ARGS }] },
      { text: 'refunded' },
    ]),
  ]);
  const searches = withSearch.events.filter(
    (e): e is Extract<AgentEvent, { type: 'tool.completed' }> =>
      e.type === 'tool.completed' && e.toolName === 'tool_search',
  );
  return {
    servers: 10,
    tools: catalogSize(),
    withoutSearch: without.requests.map(toolBytes),
    withSearch: withSearch.requests.map(toolBytes),
    withSearchTools: withSearch.requests.map((r) => r.tools.length),
    firstSearchMs: searches[0]?.durationMs ?? Number.NaN,
    laterSearchMs: searches[1]?.durationMs ?? Number.NaN,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The bench section's lines. */
export function formatToolSearchBytes(r: ToolSearchBytesResult): string[] {
  const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
  const turns = (list: readonly number[]) => list.map(kb).join(', ');
  const total = (list: readonly number[]) => list.reduce((a, b) => a + b, 0);
  return [
    `12. tool definitions sent per turn, ${r.tools} tools on ${r.servers} stdio servers (4-turn run: search, search, call, answer)`,
    `   without search (toolSearch: false): ${turns(r.withoutSearch)} (${kb(total(r.withoutSearch))} in all)`,
    `   with search ('auto'):               ${turns(r.withSearch)} (${kb(total(r.withSearch))} in all; tools shown ${r.withSearchTools.join(', ')})`,
    `   first request with search: ${((100 * r.withSearch[0]!) / r.withoutSearch[0]!).toFixed(2)}% of the bytes without; tool_search call ${r.firstSearchMs.toFixed(1)} ms first (builds the index), ${r.laterSearchMs.toFixed(1)} ms later; section ${r.seconds.toFixed(1)} s`,
  ];
}
