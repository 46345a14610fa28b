import type { ClientCapabilities } from '@modelcontextprotocol/client';
import type { McpHandlers } from './handler-types.js';

/**
 * The client capabilities a connection declares, derived from the handlers given: no
 * handler, no capability (servers such as server-everything then hide the tools that need it).
 */
export function deriveCapabilities(handlers: McpHandlers | undefined): ClientCapabilities {
  return {
    ...(handlers?.roots !== undefined ? { roots: { listChanged: true } } : {}),
    ...(handlers?.sampling !== undefined ? { sampling: {} } : {}),
    ...(handlers?.elicitation !== undefined ? { elicitation: { form: {}, url: {} } } : {}),
  };
}
