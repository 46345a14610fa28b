import { ToolSearchIndex } from './tool-search-index.js';
import type { SearchableTool } from './tool-search-index.js';

/**
 * Built indexes, keyed by the input schema object of their first tool. A run's catalog is new
 * every run, but an MCP tool's definition (and so its schema object) stays the same object
 * until its server's listing is refreshed, so the next run over an unchanged catalog finds its
 * index here. A hit is checked tool by tool (same name, description, original name and schema
 * object, in the same order); anything else builds anew and replaces the entry.
 */
const indexes = new WeakMap<object, { tools: readonly SearchableTool[]; index: ToolSearchIndex }>();

/**
 * The search index over `tools`: the one built for an equal snapshot earlier (see above), or a
 * new one.
 */
export function searchIndexFor(tools: readonly SearchableTool[]): ToolSearchIndex {
  const key = tools[0]?.inputSchema;
  if (typeof key !== 'object' || key === null) return new ToolSearchIndex(tools);
  const hit = indexes.get(key);
  if (hit && sameTools(hit.tools, tools)) return hit.index;
  const index = new ToolSearchIndex(tools);
  indexes.set(key, { tools, index });
  return index;
}

function sameTools(a: readonly SearchableTool[], b: readonly SearchableTool[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (
      x.name !== y.name ||
      x.description !== y.description ||
      x.inputSchema !== y.inputSchema ||
      x.info?.originalName !== y.info?.originalName
    )
      return false;
  }
  return true;
}
