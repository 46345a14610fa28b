import { MusterError } from '../errors/index.js';
import type { McpFacade } from '../mcp/index.js';

/** What a child may not do to the registry and connections it borrows. */
const ROOT_ONLY: ReadonlySet<string | symbol> = new Set([
  'register',
  'update',
  'unregister',
  'disconnectAll',
  'logout',
  'authenticate',
  'submitOAuthCallback',
  'setLoggingLevel',
  'notifyRootsChanged',
  'subscribeResource',
  'unsubscribeResource',
  'listen',
]);

/**
 * `child.mcp`: the root's registry and operations, read and used as they are, except what
 * changes the registry or the state of shared connections (`register`, `update`,
 * `unregister`, `disconnectAll`, `logout`, `authenticate`, `submitOAuthCallback`,
 * `setLoggingLevel`, `notifyRootsChanged`) or opens subscriptions that would outlive the child
 * (`subscribeResource`, `unsubscribeResource`, `listen`), which fails at once with
 * `REGISTRY_BUSY`. The direct operations left (`callTool`, `readResource`, ...) are the
 * host's, as on the root: the policy governs what the model calls.
 */
export function childMcpFacade(root: McpFacade): McpFacade {
  return new Proxy(root, {
    get(target, key) {
      if (ROOT_ONLY.has(key)) return (..._args: unknown[]) => Promise.reject(refusal(String(key)));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

function refusal(operation: string): MusterError {
  return new MusterError(
    'REGISTRY_BUSY',
    `mcp.${operation}() cannot be called on a child agent: the servers and their connections belong to the root agent; call root.mcp.${operation}() while the root and its children are idle.`,
    { details: { operation } },
  );
}
