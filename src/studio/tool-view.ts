import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { ArchivedToolResult } from '../agent/index.js';
import { mcpAppVisibilityOf } from '../mcp/index.js';
import type { ToolResultView, ToolView } from './api-types.js';

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The MCP Apps view a tool declares: `_meta.ui.resourceUri`, else the legacy flat key
 * `_meta["ui/resourceUri"]`.
 */
export function uiResourceUriOf(tool: Pick<Tool, '_meta'>): string | undefined {
  const meta = record(tool._meta);
  const nested = record(meta?.['ui'])?.['resourceUri'];
  if (typeof nested === 'string') return nested;
  const flat = meta?.['ui/resourceUri'];
  return typeof flat === 'string' ? flat : undefined;
}

/** A listed tool as the page shows it; `modelName` is its name in runs. */
export function toolView(tool: Tool, modelName: string): ToolView {
  const uiResourceUri = uiResourceUriOf(tool);
  const visibility = mcpAppVisibilityOf(tool);
  return {
    name: tool.name,
    modelName,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Record<string, unknown> } : {}),
    ...(tool.annotations ? { annotations: tool.annotations as Record<string, unknown> } : {}),
    ...(uiResourceUri !== undefined ? { uiResourceUri } : {}),
    ...(visibility ? { visibility } : {}),
  };
}

/** The largest raw result (bytes of JSON) the studio sends with an archived result. */
export const MAX_RAW_RESULT_BYTES = 1024 * 1024;

/**
 * A result after a run's treatment (`agent.sessions.archiveResult`): as it was when nothing
 * was archived; else the preview the model would read, the refs to page, the blocks that
 * are not text, and the raw result for MCP Apps views when it is at most 1 MiB (over that,
 * a stand-in carrying the preview, and `rawOmitted` says how big it was).
 */
export function archivedResultView(
  result: CallToolResult,
  archived: ArchivedToolResult,
  sessionId: string,
): ToolResultView {
  const plain = toolResultView(result);
  if (archived.archived.length === 0) return plain;
  const preview = archived.result.content;
  const rawBytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  const small = rawBytes <= MAX_RAW_RESULT_BYTES;
  const previewBlock = { type: 'text', text: preview };
  return {
    isError: plain.isError,
    content: small ? plain.content.filter((b) => b['type'] !== 'text') : [],
    ...(small && plain.structuredContent !== undefined
      ? { structuredContent: plain.structuredContent }
      : {}),
    raw: small
      ? plain.raw
      : { content: [previewBlock], ...(plain.isError ? { isError: true } : {}) },
    preview,
    archived: archived.archived.map((a) => ({ ...a, sessionId })),
    ...(small ? {} : { rawOmitted: { bytes: rawBytes } }),
  };
}

/** A `CallToolResult` as the page renders it (the raw result kept for MCP Apps views). */
export function toolResultView(result: CallToolResult): ToolResultView {
  return {
    isError: result.isError === true,
    content: (result.content ?? []) as unknown as Record<string, unknown>[],
    ...(result.structuredContent !== undefined
      ? { structuredContent: result.structuredContent }
      : {}),
    raw: result as unknown as Record<string, unknown>,
  };
}
