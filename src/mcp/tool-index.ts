import type { NamingMode, ToolDefinition } from '../tools/index.js';
import { mcpEvent } from './mcp-defaults.js';
import type { Emit } from './mcp-defaults.js';
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

  constructor(readonly naming: NamingMode) {}

  /** The definitions of every published tool, as the run's catalog will see them. */
  definitions(): ToolDefinition[] {
    return [...this.#byTool.values()].map((t) => t.tool.definition);
  }

  /** The server and original name of a model-facing tool name. */
  resolve(name: string): ToolAddress | undefined {
    const hit = this.#byTool.get(name);
    return hit ? { server: hit.entry.name, originalName: hit.tool.originalName } : undefined;
  }

  /** Replaces a server's published tools with `tools` and reports each one and the catalog. */
  publish(
    e: ServerEntry,
    tools: DiscoveredTool[],
    reason: 'discovered' | 'refreshed',
    emit: Emit,
  ): void {
    this.unpublish(e);
    e.tools = tools;
    for (const tool of tools) {
      this.#byTool.set(tool.name, { entry: e, tool });
      emit(
        mcpEvent({
          type: 'mcp.tool.discovered',
          server: e.name,
          toolName: tool.name,
          originalName: tool.originalName,
        }),
      );
    }
    emit(
      mcpEvent({ type: 'mcp.catalog.updated', server: e.name, reason, toolCount: tools.length }),
    );
  }

  /** Withdraws a server's tools (its entry keeps its listing). */
  unpublish(e: ServerEntry): void {
    for (const tool of e.tools)
      if (this.#byTool.get(tool.name)?.entry === e) this.#byTool.delete(tool.name);
  }

  /** Withdraws a server's tools and forgets its listing. */
  drop(e: ServerEntry): void {
    this.unpublish(e);
    e.tools = [];
  }
}
