import { describe, expect, it } from 'vitest';
import { ContextManager } from '../context/index.js';
import type { ModelMessage } from '../model/index.js';
import { foundToolNames, ToolCatalog } from '../tools/index.js';
import type { ToolDefinition, ToolExecutor, ToolInfo } from '../tools/index.js';
import { planToolSearch } from './run-tool-search.js';
import { RunToolView, turnTools } from './run-tool-view.js';

const schema = { type: 'object', properties: { q: { type: 'string' } } } as const;

function source(names: readonly string[], info: (name: string) => ToolInfo): ToolExecutor {
  const defs: ToolDefinition[] = names.map((name) => ({
    name,
    description: `The ${name} tool, with a description long enough to count.`,
    inputSchema: schema,
  }));
  return { listTools: () => defs, getToolInfo: info, execute: async () => 'ok' };
}

const mcpNames = Array.from({ length: 50 }, (_, i) => `mcp__srv__tool_${i}`);
const mcp = source(mcpNames, (name) => ({
  source: 'mcp',
  server: 'srv',
  originalName: name.slice('mcp__srv__'.length),
}));
const host = source(['host_tool'], () => ({ source: 'host' }));
const isSearched = (e: { info: ToolInfo }) => e.info.source === 'mcp';

describe('RunToolView', () => {
  it('shows the unsearched tools, then what was found, and keeps one array until something changes', async () => {
    const catalog = await ToolCatalog.build([host, mcp]);
    const view = new RunToolView(catalog, isSearched);
    const first = view.tools();
    expect(first.map((t) => t.name)).toEqual(['host_tool']);
    expect(view.tools()).toBe(first);
    view.load(['mcp__srv__tool_7', 'unknown', 'host_tool']);
    const second = view.tools();
    expect(second).not.toBe(first);
    expect(second.map((t) => t.name)).toEqual(['host_tool', 'mcp__srv__tool_7']);
    view.load(['mcp__srv__tool_7']);
    expect(view.tools()).toBe(second);
  });

  it('appends found tools at the end in the order found, keeping the earlier list as its prefix', async () => {
    const catalog = await ToolCatalog.build([host, mcp]);
    const view = new RunToolView(catalog, isSearched);
    const start = view.tools();
    view.load(['mcp__srv__tool_7']);
    const afterOne = view.tools();
    view.load(['mcp__srv__tool_2', 'mcp__srv__tool_40', 'mcp__srv__tool_1']);
    const afterTwo = view.tools();
    // not catalog order (tool_1, tool_2, tool_7, tool_40): the order found
    expect(afterTwo.map((t) => t.name)).toEqual([
      'host_tool',
      'mcp__srv__tool_7',
      'mcp__srv__tool_2',
      'mcp__srv__tool_40',
      'mcp__srv__tool_1',
    ]);
    expect(afterOne.slice(0, start.length)).toEqual(start);
    expect(afterTwo.slice(0, afterOne.length)).toEqual(afterOne);
    expect(view.loaded()).toEqual([
      'mcp__srv__tool_7',
      'mcp__srv__tool_2',
      'mcp__srv__tool_40',
      'mcp__srv__tool_1',
    ]);
  });

  it('loads found tools only while the shown MCP definitions stay within the budget', async () => {
    const catalog = await ToolCatalog.build([host, mcp]);
    // each definition costs 10; the host tool does not count, tool_0 (always shown) does
    const view = new RunToolView(catalog, (e) => isSearched(e) && e.name !== 'mcp__srv__tool_0', {
      tokens: 35,
      cost: () => 10,
      counts: (e) => e.info.source === 'mcp',
    });
    expect(view.load(['mcp__srv__tool_1', 'mcp__srv__tool_2', 'mcp__srv__tool_3'])).toEqual({
      notLoaded: ['mcp__srv__tool_3'],
      budgetTokens: 35,
    });
    expect(view.load(['mcp__srv__tool_1', 'mcp__srv__tool_4'])).toEqual({
      notLoaded: ['mcp__srv__tool_4'],
      budgetTokens: 35,
    });
    expect(view.tools().map((t) => t.name)).toEqual([
      'host_tool',
      'mcp__srv__tool_0',
      'mcp__srv__tool_1',
      'mcp__srv__tool_2',
    ]);
    // a smaller definition still fits where a larger one did not
    const sized = new RunToolView(catalog, isSearched, {
      tokens: 30,
      cost: (e) => (e.name === 'mcp__srv__tool_5' ? 25 : 5),
      counts: () => true,
    });
    expect(
      sized.load(['mcp__srv__tool_6', 'mcp__srv__tool_5', 'mcp__srv__tool_7']).notLoaded,
    ).toEqual(['mcp__srv__tool_5']);
    expect(sized.loaded()).toEqual(['mcp__srv__tool_6', 'mcp__srv__tool_7']);
  });

  it('restores at most the budget, keeping the most recent finds and calls, in the order first found', async () => {
    const catalog = await ToolCatalog.build([host, mcp]);
    const budget = { tokens: 20, cost: () => 10, counts: isSearched };
    const found = (callId: string, names: string[]): ModelMessage => ({
      role: 'tool',
      callId,
      toolName: 'tool_search',
      isError: false,
      content: ['Found', ...names.map((n) => `- ${n}: d`)].join('\n'),
    });
    const call = (name: string): ModelMessage => ({
      role: 'assistant',
      content: [{ type: 'tool-call', callId: `c-${name}`, name, arguments: {} }],
    });
    const transcript = [
      found('s1', ['mcp__srv__tool_1']),
      found('s2', ['mcp__srv__tool_2']),
      found('s3', ['mcp__srv__tool_3']),
    ];
    const recent = new RunToolView(catalog, isSearched, budget);
    recent.restore(transcript);
    expect(recent.loaded()).toEqual(['mcp__srv__tool_2', 'mcp__srv__tool_3']);
    // calling tool_1 again makes it recent: it is kept, and shown where it was first found
    const called = new RunToolView(catalog, isSearched, budget);
    called.restore([...transcript, call('mcp__srv__tool_1')]);
    expect(called.tools().map((t) => t.name)).toEqual([
      'host_tool',
      'mcp__srv__tool_1',
      'mcp__srv__tool_3',
    ]);
    // a tool_search result's "not loaded" lines are not restored as found
    const skipped = new RunToolView(catalog, isSearched, budget);
    skipped.restore([
      {
        role: 'tool',
        callId: 's4',
        toolName: 'tool_search',
        isError: false,
        content:
          'Found 2 tools.\n- mcp__srv__tool_8: d\nNot loaded:\n- mcp__srv__tool_9 (not loaded): d',
      },
    ]);
    expect(skipped.loaded()).toEqual(['mcp__srv__tool_8']);
  });

  it('never loads a tool the catalog hides', async () => {
    const catalog = await ToolCatalog.build([mcp], (e) => e.name !== 'mcp__srv__tool_3');
    const view = new RunToolView(catalog, isSearched);
    view.load(['mcp__srv__tool_3', 'mcp__srv__tool_4']);
    expect(view.loaded()).toEqual(['mcp__srv__tool_4']);
    expect(view.searchable().map((e) => e.name)).not.toContain('mcp__srv__tool_3');
  });

  it('restores from a transcript: tools called and tools a tool_search result listed', async () => {
    const catalog = await ToolCatalog.build([mcp]);
    const view = new RunToolView(catalog, isSearched);
    const transcript: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', callId: 'c1', name: 'mcp__srv__tool_1', arguments: {} }],
      },
      {
        role: 'tool',
        callId: 'c2',
        toolName: 'tool_search',
        isError: false,
        content: 'Found 2 tools for "x". ...\n- mcp__srv__tool_2: d\n- mcp__srv__gone: d',
      },
      {
        role: 'tool',
        callId: 'c3',
        toolName: 'tool_search',
        isError: true,
        content: '- mcp__srv__tool_9: not a result',
      },
    ];
    const tools = turnTools(catalog, view, transcript);
    expect(tools().map((t) => t.name)).toEqual(['mcp__srv__tool_1', 'mcp__srv__tool_2']);
  });

  it('without a view, every visible tool, computed once', async () => {
    const catalog = await ToolCatalog.build([host, mcp]);
    const tools = turnTools(catalog, undefined, []);
    expect(tools()).toHaveLength(51);
    expect(tools()).toBe(tools());
  });
});

describe('planToolSearch', () => {
  const context = new ContextManager();

  it("searches with true, never with false, and with 'auto' only over the budget", async () => {
    const sources = await ToolCatalog.build([host, mcp]);
    expect(planToolSearch({ toolSearch: false }, context, sources)).toBeUndefined();
    expect(planToolSearch({ toolSearch: true }, context, sources)).toBeDefined();
    // 50 definitions of ~190 bytes are ~2,400 tokens: under the default 3,200, over 1,000
    expect(planToolSearch(undefined, context, sources)).toBeUndefined();
    expect(planToolSearch({ toolSearchBudgetTokens: 1_000 }, context, sources)).toBeDefined();
    const small = new ContextManager({ maxTokens: 10_000 });
    expect(planToolSearch({}, small, sources)).toBeDefined();
    // a host tokenizer is what counts
    const costly = new ContextManager({ tokenizer: (t) => t.length * 10 });
    expect(planToolSearch({}, costly, sources)).toBeDefined();
    // a host tool already named tool_search: 'auto' keeps it and searches nothing
    const named = await ToolCatalog.build([
      source(['tool_search'], () => ({ source: 'host' })),
      mcp,
    ]);
    expect(planToolSearch({ toolSearchBudgetTokens: 1 }, context, named)).toBeUndefined();
    // no MCP tools: nothing to search
    expect(planToolSearch({ toolSearch: true }, context, await ToolCatalog.build([host]))).toBe(
      undefined,
    );
  });

  it('a search over the budget says which tools were not loaded and why', async () => {
    const sources = await ToolCatalog.build([host, mcp]);
    // one definition is ~48 tokens: two fit in 100, five do not
    const plan = planToolSearch(
      { toolSearch: true, toolSearchBudgetTokens: 100 },
      context,
      sources,
    )!;
    const view = plan.view(await sources.extend([plan.executor]))!;
    const text = await plan.executor.execute('tool_search', { query: 'tool', limit: 5 });
    expect(view.loaded()).toHaveLength(2);
    expect(foundToolNames(text)).toEqual(view.loaded());
    expect(text).toContain('Not loaded, as the tools shown would pass their budget of 100 tokens');
    expect(text).toContain('you may still call these by name');
    expect(text.match(/ \(not loaded\): /g)).toHaveLength(3);
  });

  it('counts definitions once per context manager and unchanged definition, across runs', async () => {
    let calls = 0;
    const counting = new ContextManager({
      tokenizer: (t) => {
        calls++;
        return t.length;
      },
    });
    const first = await ToolCatalog.build([host, mcp]);
    expect(planToolSearch({ toolSearchBudgetTokens: 1_000_000 }, counting, first)).toBeUndefined();
    expect(calls).toBe(50);
    // the next run's catalog is a new object over the same definitions
    const second = await ToolCatalog.build([host, mcp]);
    expect(planToolSearch({ toolSearchBudgetTokens: 1_000_000 }, counting, second)).toBeUndefined();
    expect(calls).toBe(50);
  });

  it('leaves alwaysLoad tools out of the search and falls back when policy hides tool_search', async () => {
    const sources = await ToolCatalog.build([host, mcp]);
    const plan = planToolSearch(
      { toolSearch: true, alwaysLoad: ['mcp__srv__tool_1*'] },
      context,
      sources,
    )!;
    const view = plan.view(await sources.extend([plan.executor]))!;
    expect(view.tools().map((t) => t.name)).toEqual([
      'host_tool',
      'mcp__srv__tool_1',
      ...Array.from({ length: 10 }, (_, i) => `mcp__srv__tool_1${i}`),
      'tool_search',
    ]);
    const hidden = await ToolCatalog.build([host, mcp], (e) => e.name !== 'tool_search');
    const plan2 = planToolSearch({ toolSearch: true }, context, hidden)!;
    expect(plan2.view(await hidden.extend([plan2.executor]))).toBeUndefined();
  });
});
