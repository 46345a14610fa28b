import type { NamingMode, ToolDefinition } from '../../tools/index.js';
import { mcpEvent } from '../contracts/mcp-defaults.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import type { DiscoveredTool } from './mcp-discovery.js';
import type { ServerEntry } from './server-entry.js';

/** Where a model-facing tool name leads: the server and the tool's name there. */
export interface ToolAddress {
  readonly server: string;
  readonly originalName: string;
}

/**
 * The model-facing names of the tools of connected servers: publishing a server's listing
 * makes its tools callable, unpublishing withdraws them.
 */
export class ToolIndex {
  readonly #byTool = new Map<string, { entry: ServerEntry; tool: DiscoveredTool }>();
  /** Where the tools of lost connections led, until their server publishes again. */
  readonly #lost = new Map<string, { entry: ServerEntry; originalName: string }>();
  /** {@link definitions} until the published tools change. */
  #definitions: readonly ToolDefinition[] | undefined;

  constructor(readonly naming: NamingMode) {}

  /**
   * The definitions of every published tool, as the run's catalog will see them. A tool only
   * its MCP Apps view may see (`modelVisible: false`) is never published, so a run neither
   * lists nor resolves it (the model naming it gets `TOOL_NOT_FOUND`). The same frozen array
   * until a server's tools are published, withdrawn or dropped: a run's catalog reuses what it
   * built from it (`OwnExecutorFacts.stableListing`).
   */
  definitions(): readonly ToolDefinition[] {
    return (this.#definitions ??= Object.freeze(
      [...this.#byTool.values()].map((t) => t.tool.definition),
    ));
  }

  /** The server and original name of a model-facing tool name. */
  resolve(name: string): ToolAddress | undefined {
    const hit = this.#byTool.get(name);
    return hit ? { server: hit.entry.name, originalName: hit.tool.originalName } : undefined;
  }

  /**
   * Where a tool led before its server's connection was lost ({@link drop}), with the entry,
   * so that a call made during a background reconnect can wait for it, and one made after
   * can connect the server again.
   */
  lostAddress(name: string): { entry: ServerEntry; originalName: string } | undefined {
    return this.#lost.get(name);
  }

  /** Replaces a server's published tools with `tools` and reports each one and the catalog. */
  publish(
    e: ServerEntry,
    tools: DiscoveredTool[],
    reason: 'discovered' | 'refreshed',
    emit: Emit,
  ): void {
    this.unpublish(e);
    this.#definitions = undefined;
    e.tools = tools;
    for (const tool of tools) {
      if (!tool.modelVisible) continue;
      this.#byTool.set(tool.name, { entry: e, tool });
      this.#lost.delete(tool.name);
      emit(
        mcpEvent({
          type: 'mcp.tool.discovered',
          server: e.name,
          toolName: tool.name,
          originalName: tool.originalName,
        }),
      );
    }
    // again: a listener of the events above may have asked for the definitions mid-way
    this.#definitions = undefined;
    emit(
      mcpEvent({ type: 'mcp.catalog.updated', server: e.name, reason, toolCount: tools.length }),
    );
  }

  /** Withdraws a server's tools (its entry keeps its listing). */
  unpublish(e: ServerEntry): void {
    this.#definitions = undefined;
    for (const tool of e.tools)
      if (this.#byTool.get(tool.name)?.entry === e) this.#byTool.delete(tool.name);
  }

  /** Withdraws a server's tools and forgets its listing (their addresses stay known). */
  drop(e: ServerEntry): void {
    for (const tool of e.tools)
      if (this.#byTool.get(tool.name)?.entry === e)
        this.#lost.set(tool.name, { entry: e, originalName: tool.originalName });
    this.unpublish(e);
    e.tools = [];
  }
}
