// Who may see a tool under MCP Apps (SEP-1865): the model, the tool's view (app), or both.

/** The audiences of an MCP Apps tool: `model` (the run's catalog) and/or `app` (its view). */
export type McpAppVisibility = readonly ('model' | 'app')[];

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The `_meta.ui.visibility` a listed tool declares, keeping only the known audiences
 * (`model`, `app`) once each; `undefined` when it declares none, which means both.
 */
export function mcpAppVisibilityOf(tool: {
  readonly _meta?: unknown;
}): McpAppVisibility | undefined {
  const value = record(record(tool._meta)?.['ui'])?.['visibility'];
  if (!Array.isArray(value)) return undefined;
  const known = value.filter((v): v is 'model' | 'app' => v === 'model' || v === 'app');
  return known.length > 0 ? [...new Set(known)] : undefined;
}

/**
 * Whether a listed tool belongs in a run's model-facing catalog: true unless its MCP Apps
 * visibility leaves the model out (for example `["app"]`, a tool only its view calls).
 */
export function isModelVisibleMcpTool(tool: { readonly _meta?: unknown }): boolean {
  return mcpAppVisibilityOf(tool)?.includes('model') ?? true;
}
