import type { ContextManager } from '../context/index.js';
import type { CatalogEntry, JsonSchema } from '../tools/index.js';

/**
 * Estimated tokens of tool definitions, per context manager and input schema object: an MCP
 * tool's definition stays the same object from run to run until its server's listing is
 * refreshed, so counting the budget of a large catalog costs a lookup per tool after the
 * first run. An entry is used only while the name and description are the same too.
 */
const costs = new WeakMap<
  ContextManager,
  WeakMap<JsonSchema, Map<string, { description: string; tokens: number }>>
>();

/**
 * The estimated tokens of one definition as a model request carries it (JSON of name,
 * description and input schema, through `context.estimateTokens`).
 */
export function definitionTokens(context: ContextManager, e: CatalogEntry): number {
  let bySchema = costs.get(context);
  if (!bySchema) costs.set(context, (bySchema = new WeakMap()));
  let byName = bySchema.get(e.inputSchema);
  if (!byName) bySchema.set(e.inputSchema, (byName = new Map()));
  const hit = byName.get(e.name);
  if (hit && hit.description === e.description) return hit.tokens;
  const def = { name: e.name, description: e.description, inputSchema: e.inputSchema };
  const tokens = context.estimateTokens(JSON.stringify(def));
  byName.set(e.name, { description: e.description, tokens });
  return tokens;
}
