import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { MusterError } from '../../errors/index.js';
import { assignMcpToolNames } from '../../tools/index.js';
import { dataDepth, MAX_DATA_DEPTH } from '../../util/index.js';
import { isModelVisibleMcpTool } from './app-visibility.js';
import type { JsonSchema, NamingMode, ToolAnnotations, ToolDefinition } from '../../tools/index.js';

/** A tool discovered on a server, with its model-facing name. */
export interface DiscoveredTool {
  /** The model-facing name (`mcp__<server>__<tool>` or a safe name). */
  readonly name: string;
  /** The name on the server; execution always uses this one. */
  readonly originalName: string;
  readonly definition: ToolDefinition;
  /**
   * False for an MCP Apps tool its server shows to its view only (`_meta.ui.visibility`
   * without `model`): it keeps its name but stays out of every run's catalog.
   */
  readonly modelVisible: boolean;
}

const ANNOTATION_KEYS = [
  'title',
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
] as const;

/**
 * Turns a server's tool listing into catalog tools: names are assigned (safe or strict),
 * input schemas must be object schemas nested at most `MAX_DATA_DEPTH` levels, annotations are kept as advisory data. Any problem
 * rejects the whole listing with `INVALID_CONFIGURATION` or `TOOL_NAME_CONFLICT`. On a
 * connection that does not take tasks (`takesTasks` false: a legacy one), a tool marked
 * {@link requiresTasks} keeps its name but stays out of every run's catalog.
 */
export function toDiscoveredTools(
  server: string,
  tools: readonly McpTool[],
  mode: NamingMode,
  takesTasks = false,
): DiscoveredTool[] {
  const names = assignMcpToolNames(
    server,
    tools.map((t) => t.name),
    mode,
  );
  return tools.map((t, i) => {
    const schema = t.inputSchema as JsonSchema | undefined;
    if (typeof schema !== 'object' || schema === null || schema.type !== 'object') {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Server '${server}' lists tool ${JSON.stringify(t.name)} with an input schema that is not an object schema: fix the server.`,
        { details: { server, tool: t.name } },
      );
    }
    // measured without recursion: nothing after this (search, hashing, requests) walks deeper
    if (dataDepth(schema) > MAX_DATA_DEPTH || dataDepth(t.outputSchema) > MAX_DATA_DEPTH) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Server '${server}' lists tool ${JSON.stringify(t.name)} with a schema nested deeper than ${MAX_DATA_DEPTH} levels: fix the server.`,
        { details: { server, tool: t.name } },
      );
    }
    const name = names[i]!.name;
    return {
      name,
      originalName: t.name,
      modelVisible: isModelVisibleMcpTool(t) && (takesTasks || !requiresTasks(t)),
      definition: {
        name,
        description: t.description ?? t.title ?? '',
        inputSchema: schema,
        ...(t.outputSchema ? { outputSchema: t.outputSchema as JsonSchema } : {}),
        ...annotationsOf(t),
      },
    };
  });
}

function annotationsOf(t: McpTool): { annotations?: ToolAnnotations } {
  const source = (t.annotations ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of ANNOTATION_KEYS) if (source[k] !== undefined) out[k] = source[k];
  if (out.title === undefined && typeof t.title === 'string') out.title = t.title;
  return Object.keys(out).length > 0 ? { annotations: out as ToolAnnotations } : {};
}

/**
 * True for a tool a legacy server (2025-11-25) marks `execution.taskSupport: "required"`: it
 * runs only as a task of that revision's task API, which Muster does not speak (its Tasks
 * client is the 2026-07-28 extension, SPEC 15.3). Such a tool is hidden from the model and a
 * direct call of it is refused unsent (`MCP_EXTENSION_UNSUPPORTED`).
 */
export function requiresTasks(tool: { readonly execution?: unknown }): boolean {
  return (tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport === 'required';
}
