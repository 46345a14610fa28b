import type { ContextManager } from '../context/index.js';
import type { McpOptions } from '../mcp/index.js';
import { compilePatterns } from '../policy/index.js';
import type { Pattern, PatternMatcher } from '../policy/index.js';
import { TOOL_SEARCH_TOOL_NAME, ToolSearchExecutor } from '../tools/index.js';
import type { CatalogEntry, ToolCatalog } from '../tools/index.js';
import { RunToolView } from './run-tool-view.js';
import { definitionTokens } from './tool-search-costs.js';
import { toolSubject } from './tool-subject.js';

/** The share of `context.maxTokens` that MCP tool definitions may take before `'auto'` searches. */
export const TOOL_SEARCH_BUDGET_SHARE = 0.1;

/** Tool search for one run: the `tool_search` executor, and the view once the catalog is final. */
export interface ToolSearchPlan {
  readonly executor: ToolSearchExecutor;
  /**
   * The run's view over its final catalog, or undefined when the policy hides `tool_search`
   * (then nothing is searched and every visible definition is sent).
   */
  view(catalog: ToolCatalog): RunToolView | undefined;
}

const alwaysLoadMatchers = new WeakMap<readonly Pattern[], PatternMatcher>();

function alwaysLoadMatcher(patterns: readonly Pattern[] | undefined): PatternMatcher {
  if (!patterns || patterns.length === 0) return () => false;
  let matcher = alwaysLoadMatchers.get(patterns);
  if (!matcher) {
    matcher = compilePatterns(patterns, 'mcp.alwaysLoad');
    alwaysLoadMatchers.set(patterns, matcher);
  }
  return matcher;
}

/**
 * Decides whether a run searches its MCP tools (SPEC 4): never with `mcp.toolSearch: false`,
 * always with `true`, and with `'auto'` (the default) when the visible MCP definitions are
 * over `mcp.toolSearchBudgetTokens` (default 10% of `context.maxTokens`, counted with the
 * context manager's estimate) and no other source offers a tool named `tool_search`. Searched
 * are the visible MCP server tools not matched by `mcp.alwaysLoad`; host and built-in tools are
 * always shown. Undefined when nothing is searched.
 */
export function planToolSearch(
  mcp: McpOptions | undefined,
  context: ContextManager,
  sources: ToolCatalog,
): ToolSearchPlan | undefined {
  const mode = mcp?.toolSearch ?? 'auto';
  if (mode === false) return undefined;
  const mcpTools = sources.visibleEntries().filter(isMcp);
  if (mcpTools.length === 0) return undefined;
  const budget =
    mcp?.toolSearchBudgetTokens ?? Math.floor(context.limits.maxTokens * TOOL_SEARCH_BUDGET_SHARE);
  if (mode === 'auto') {
    // a source of the host's already offers the name: keep its tool, send every definition
    if (sources.get(TOOL_SEARCH_TOOL_NAME)) return undefined;
    if (!overBudget(mcpTools, context, budget)) return undefined;
  }
  const alwaysLoad = alwaysLoadMatcher(mcp?.alwaysLoad);
  const isSearched = (e: CatalogEntry) => isMcp(e) && !alwaysLoad(toolSubject(e));
  let view: RunToolView | undefined;
  const executor = new ToolSearchExecutor({
    tools: () => view?.searchable() ?? [],
    onFound: (names) => view?.load(names),
  });
  const viewBudget = {
    tokens: budget,
    cost: (e: CatalogEntry) => definitionTokens(context, e),
    counts: isMcp,
  };
  return {
    executor,
    view(catalog) {
      const entry = catalog.get(TOOL_SEARCH_TOOL_NAME);
      if (!entry || entry.executor !== executor || !catalog.isVisible(TOOL_SEARCH_TOOL_NAME))
        return undefined;
      view = new RunToolView(catalog, isSearched, viewBudget);
      return view;
    },
  };
}

/** A tool of an MCP server (not the resource tools, which are MCP's own built-ins). */
function isMcp(entry: CatalogEntry): boolean {
  return entry.info.source === 'mcp' && entry.info.server !== undefined;
}

/** True once the definitions' estimated tokens pass `budget` (stops counting there). */
function overBudget(entries: readonly CatalogEntry[], context: ContextManager, budget: number) {
  let tokens = 0;
  for (const e of entries) {
    tokens += definitionTokens(context, e);
    if (tokens > budget) return true;
  }
  return false;
}
