import type { McpHandlers, McpRoot } from './handler-types.js';

/** Answers `roots/list` from the configured list or function. */
export async function listRoots(
  roots: NonNullable<McpHandlers['roots']>,
): Promise<{ roots: McpRoot[] }> {
  const list = typeof roots === 'function' ? await roots() : roots;
  return {
    roots: list.map((r) => ({ uri: r.uri, ...(r.name !== undefined ? { name: r.name } : {}) })),
  };
}
