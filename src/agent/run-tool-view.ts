import type { ModelMessage, ModelToolDefinition } from '../model/index.js';
import { foundToolNames, TOOL_SEARCH_TOOL_NAME } from '../tools/index.js';
import type { CatalogEntry, ToolCatalog } from '../tools/index.js';

/**
 * What the model is shown of a run's catalog when tool search is on (SPEC 4, large catalogs):
 * every visible tool that is not searched (host, built-in, `mcp.alwaysLoad`), and the searched
 * ones found so far. The catalog itself stays fixed: this only widens what the model is shown,
 * never what may be called (a call still goes through the whole pipeline, and a visible tool
 * that was not found yet may be called too).
 */
export class RunToolView {
  readonly #catalog: ToolCatalog;
  readonly #isSearched: (entry: CatalogEntry) => boolean;
  readonly #loaded = new Set<string>();
  #tools: ModelToolDefinition[] | undefined;

  constructor(catalog: ToolCatalog, isSearched: (entry: CatalogEntry) => boolean) {
    this.#catalog = catalog;
    this.#isSearched = isSearched;
  }

  /** The visible tools a search can find. */
  searchable(): CatalogEntry[] {
    return this.#catalog.visibleEntries().filter(this.#isSearched);
  }

  /** Adds found tools to what is shown from the next request on (unknown or hidden names are ignored). */
  load(names: readonly string[]): void {
    for (const name of names) {
      if (this.#loaded.has(name) || !this.#catalog.isVisible(name)) continue;
      const entry = this.#catalog.get(name);
      if (!entry || !this.#isSearched(entry)) continue;
      this.#loaded.add(name);
      this.#tools = undefined;
    }
  }

  /**
   * Restores what a continued session had found: the tools its transcript called and the
   * tools its `tool_search` results listed, as far as this run's catalog still has them.
   */
  restore(transcript: readonly ModelMessage[]): void {
    for (const m of transcript) {
      if (m.role === 'assistant') {
        for (const p of m.content) if (p.type === 'tool-call') this.load([p.name]);
      } else if (m.role === 'tool' && m.toolName === TOOL_SEARCH_TOOL_NAME && !m.isError) {
        this.load(foundToolNames(m.content));
      }
    }
  }

  /** The names found so far, in the order they were found. */
  loaded(): readonly string[] {
    return [...this.#loaded];
  }

  /** The definitions to send now, in catalog order; the same array until something is found. */
  tools(): readonly ModelToolDefinition[] {
    this.#tools ??= this.#catalog
      .visibleEntries()
      .filter((e) => !this.#isSearched(e) || this.#loaded.has(e.name))
      .map((e) => ({ name: e.name, description: e.description, inputSchema: e.inputSchema }));
    return this.#tools;
  }
}

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
