import type { ModelMessage, ModelToolDefinition } from '../model/index.js';
import { foundToolNames, modelToolOf, TOOL_SEARCH_TOOL_NAME } from '../tools/index.js';
import type { CatalogEntry, ToolCatalog, ToolSearchLoad } from '../tools/index.js';

/** How many tokens the shown MCP definitions may take, and how one is counted. */
export interface ToolViewBudget {
  /** `mcp.toolSearchBudgetTokens` (default 10% of `context.maxTokens`). */
  readonly tokens: number;
  /** The estimated tokens of one definition (the context manager's estimate). */
  readonly cost: (entry: CatalogEntry) => number;
  /** Whether an always-shown entry counts against the budget (the `mcp.alwaysLoad` tools). */
  readonly counts: (entry: CatalogEntry) => boolean;
}

/**
 * What the model is shown of a run's catalog when tool search is on (SPEC 4, large catalogs):
 * every visible tool that is not searched (host, built-in, `mcp.alwaysLoad`), in catalog
 * order, and after them the searched ones found so far, in the order found, so the list only
 * ever grows at its end (a provider's prompt cache keeps the part before). Found definitions
 * are loaded only while the shown MCP definitions stay within the budget. The catalog itself
 * stays fixed: this only widens what the model is shown, never what may be called (a visible
 * tool that was not found, or not loaded, may be called too).
 */
export class RunToolView {
  readonly #catalog: ToolCatalog;
  readonly #isSearched: (entry: CatalogEntry) => boolean;
  readonly #budget: ToolViewBudget | undefined;
  readonly #base: readonly ModelToolDefinition[];
  readonly #found: ModelToolDefinition[] = [];
  readonly #loaded = new Set<string>();
  #used = 0;
  #tools: readonly ModelToolDefinition[];

  constructor(
    catalog: ToolCatalog,
    isSearched: (entry: CatalogEntry) => boolean,
    budget?: ToolViewBudget,
  ) {
    this.#catalog = catalog;
    this.#isSearched = isSearched;
    this.#budget = budget;
    const base = catalog.visibleEntries().filter((e) => !isSearched(e));
    this.#base = base.map(definition);
    if (budget) for (const e of base) if (budget.counts(e)) this.#used += budget.cost(e);
    this.#tools = this.#base;
  }

  /** The visible tools a search can find. */
  searchable(): CatalogEntry[] {
    return this.#catalog.visibleEntries().filter(this.#isSearched);
  }

  /**
   * Adds found tools to what is shown from the next request on, in the order given, as far as
   * the budget allows (unknown, hidden and unsearched names are ignored); says which were not
   * loaded for the budget.
   */
  load(names: readonly string[]): ToolSearchLoad {
    const notLoaded: string[] = [];
    for (const name of names) {
      const entry = this.#findable(name);
      if (!entry) continue;
      if (!this.#add(entry)) notLoaded.push(name);
    }
    return { notLoaded, budgetTokens: this.#budget?.tokens ?? Infinity };
  }

  /**
   * Restores what a continued session had found: the tools its transcript called and the
   * tools its `tool_search` results listed, as far as this run's catalog still has them. When
   * they do not all fit the budget, the most recently found or called are kept; they are
   * shown in the order they were first found, as the earlier run showed them.
   */
  restore(transcript: readonly ModelMessage[]): void {
    const first = new Map<string, number>();
    const last = new Map<string, number>();
    let at = 0;
    const seen = (name: string) => {
      if (!first.has(name)) first.set(name, at);
      last.set(name, at++);
    };
    for (const m of transcript) {
      if (m.role === 'assistant') {
        for (const p of m.content) if (p.type === 'tool-call') seen(p.name);
      } else if (m.role === 'tool' && m.toolName === TOOL_SEARCH_TOOL_NAME && !m.isError) {
        for (const name of foundToolNames(m.content)) seen(name);
      }
    }
    const candidates = [...last.keys()].flatMap((name) => {
      const entry = this.#findable(name);
      return entry ? [entry] : [];
    });
    const chosen = new Set<string>();
    let room = this.#budget ? this.#budget.tokens - this.#used : Infinity;
    for (const e of candidates.sort((a, b) => last.get(b.name)! - last.get(a.name)!)) {
      const cost = this.#budget?.cost(e) ?? 0;
      if (cost > room) continue;
      room -= cost;
      chosen.add(e.name);
    }
    const ordered = [...chosen].sort((a, b) => first.get(a)! - first.get(b)!);
    for (const name of ordered) this.#add(this.#catalog.get(name)!);
  }

  /** The names found (and loaded) so far, in the order they were found. */
  loaded(): readonly string[] {
    return [...this.#loaded];
  }

  /**
   * The definitions to send now: the unsearched ones in catalog order, then the found ones in
   * the order found; the same array until something is found.
   */
  tools(): readonly ModelToolDefinition[] {
    return this.#tools;
  }

  #findable(name: string): CatalogEntry | undefined {
    if (this.#loaded.has(name) || !this.#catalog.isVisible(name)) return undefined;
    const entry = this.#catalog.get(name);
    return entry && this.#isSearched(entry) ? entry : undefined;
  }

  /** Loads one entry if it fits the budget; false when it does not. */
  #add(entry: CatalogEntry): boolean {
    const cost = this.#budget?.cost(entry) ?? 0;
    if (this.#budget && this.#used + cost > this.#budget.tokens) return false;
    this.#used += cost;
    this.#loaded.add(entry.name);
    this.#found.push(definition(entry));
    this.#tools = [...this.#base, ...this.#found];
    return true;
  }
}

const definition: (e: CatalogEntry) => ModelToolDefinition = modelToolOf;

/**
 * The tools of each model request of a run: without a view, the catalog's visible tools,
 * computed once; with one, the view's current set (restored from `transcript` first).
 */
export function turnTools(
  catalog: ToolCatalog,
  view: RunToolView | undefined,
  transcript: readonly ModelMessage[],
): () => readonly ModelToolDefinition[] {
  if (!view) {
    const all = catalog.modelTools();
    return () => all;
  }
  view.restore(transcript);
  return () => view.tools();
}
