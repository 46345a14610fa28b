import { guardHandler } from './handler-guard.js';
import type { McpHandlers, McpRoot } from '../contracts/handler-types.js';

/**
 * Answers `roots/list` from the configured list or function; the function gets the same
 * deadline (`timeoutMs`) and abort (`signal`) as every host handler.
 */
export async function listRoots(
  roots: NonNullable<McpHandlers['roots']>,
  server: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ roots: McpRoot[] }> {
  const list =
    typeof roots === 'function'
      ? await guardHandler(`The roots function for '${server}'`, timeoutMs, signal, () => roots())
      : roots;
  return {
    roots: list.map((r) => ({ uri: r.uri, ...(r.name !== undefined ? { name: r.name } : {}) })),
  };
}
