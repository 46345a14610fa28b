import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { ToolResultView, ToolView } from './api-types.js';

type Visibility = NonNullable<ToolView['visibility']>;

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

/** `_meta.ui.visibility` when it lists `model` and/or `app`; absent means both. */
export function visibilityOf(tool: Pick<Tool, '_meta'>): Visibility | undefined {
  const value = record(record(tool._meta)?.['ui'])?.['visibility'];
  if (!Array.isArray(value)) return undefined;
  const known = value.filter((v): v is 'model' | 'app' => v === 'model' || v === 'app');
  return known.length > 0 ? [...new Set(known)] : undefined;
}

/** A listed tool as the page shows it; `modelName` is its name in runs. */
export function toolView(tool: Tool, modelName: string): ToolView {
  const uiResourceUri = uiResourceUriOf(tool);
  const visibility = visibilityOf(tool);
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
