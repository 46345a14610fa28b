/**
 * The text of one MCP content item: a typed part (`{ type: 'text', text }` of a tool result,
 * prompt message or sampling message) or a resource's contents (`{ uri, text }`); undefined
 * for anything else (images, audio, blobs, links).
 */
export function mcpTextOf(item: unknown): string | undefined {
  const c = item as { type?: unknown; text?: unknown } | null;
  if (!c || typeof c.text !== 'string') return undefined;
  return c.type === undefined || c.type === 'text' ? c.text : undefined;
}

/**
 * One MCP content item as text for a model or a person: its text, else a placeholder naming
 * what was left out (`[image omitted]`, `[binary application/pdf omitted]` for a resource blob).
 */
export function mcpContentText(item: unknown): string {
  const text = mcpTextOf(item);
  if (text !== undefined) return text;
  const c = (item ?? {}) as { type?: unknown; mimeType?: unknown };
  if (typeof c.type === 'string') return `[${c.type} omitted]`;
  return `[binary ${typeof c.mimeType === 'string' ? c.mimeType : 'content'} omitted]`;
}
