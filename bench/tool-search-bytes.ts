import type { AgentEvent, ModelRequest, ScriptedTurn } from '../src/index.js';
import type { SearchableTool } from '../src/tools/index.js';
import {
  CATALOG_DOMAINS,
  catalogServers,
  catalogSize,
  catalogTools,
} from '../test/support/catalog-fixtures.js';
import { summarize } from './stats.js';
import { muster, musterTools } from './muster.js';

const { createAgent, scriptedModel } = muster;
const { ToolSearchIndex } = musterTools;

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
  /** Building the index of the 2,000 tools alone, median of 5, in ms. */
  readonly indexBuildMs: number;
  /** One ranked query over it, median, in µs. */
  readonly queryUs: number;
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
    // servers ready first, so the run's timings are not those of ten process starts
    await agent.initialize();
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
  // one after the other (twenty server processes starting at once would skew the timings),
  // without search first: it pays the process's first tool call (the schema validator loads)
  const without = await runOnce(false, [
    { toolCalls: [{ name: FOUND, arguments: REFUND_ARGS }] },
    { toolCalls: [{ name: FOUND, arguments: REFUND_ARGS }] },
    { toolCalls: [{ name: FOUND, arguments: REFUND_ARGS }] },
    { text: 'refunded' },
  ]);
  const withSearch = await runOnce(true, [
    { toolCalls: [{ name: 'tool_search', arguments: { query: QUERY } }] },
    { toolCalls: [{ name: 'tool_search', arguments: { query: 'send a mail later' } }] },
    { toolCalls: [{ name: FOUND, arguments: REFUND_ARGS }] },
    { text: 'refunded' },
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
    ...measureIndex(),
    seconds: (performance.now() - started) / 1000,
  };
}

/** The index alone over the same 2,000 definitions: build time and query time. */
function measureIndex(): { indexBuildMs: number; queryUs: number } {
  const tools: SearchableTool[] = CATALOG_DOMAINS.flatMap((d) =>
    catalogTools(d).map((t) => ({
      name: `mcp__${d}__${t.name}`,
      description: t.description,
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(
          t.params.map((p) => [p.name, { type: p.type, description: p.description }]),
        ),
      },
    })),
  );
  const builds: number[] = [];
  let index = new ToolSearchIndex(tools);
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    index = new ToolSearchIndex(tools);
    builds.push(performance.now() - t);
  }
  const queries = [QUERY, 'send a mail later at a chosen time', 'latitude longitude forecast'];
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    index.search(queries[i % queries.length]!, 5);
    times.push((performance.now() - t) * 1000);
  }
  return { indexBuildMs: summarize(builds).median, queryUs: summarize(times.slice(30)).median };
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
    `   first request with search: ${((100 * r.withSearch[0]!) / r.withoutSearch[0]!).toFixed(2)}% of the bytes without; section ${r.seconds.toFixed(1)} s`,
    `   tool_search call: first ${r.firstSearchMs.toFixed(1)} ms (builds the index), later ${r.laterSearchMs.toFixed(1)} ms; index alone: build ${r.indexBuildMs.toFixed(1)} ms, one query ${r.queryUs.toFixed(0)} µs`,
  ];
}
