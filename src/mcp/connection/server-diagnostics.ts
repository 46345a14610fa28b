import type { McpServerDiagnostics } from '../contracts/operation-types.js';
import { unknownServerError } from './server-registry.js';
import type { ServerRegistry } from './server-registry.js';

/**
 * The diagnostics of one server (`agent.mcp.diagnostics(name)`): the redacted stderr tail and
 * exit of its latest stdio process (kept on the entry, so a server that died at start can still
 * be diagnosed), nothing for other transports. Local, no I/O. The tail is redacted with the
 * server's `SecretRegistry` (its env values and everything token-shaped); it is meant for the
 * host's own logs and never goes into an event, a status or an error.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for a name no server is registered under.
 */
export function serverDiagnostics(registry: ServerRegistry, name: string): McpServerDiagnostics {
  const e = registry.get(name);
  if (!e) throw unknownServerError(name);
  const exit = e.process?.exit();
  return {
    name,
    stderrTail: e.process ? e.secrets.redact(e.process.stderrTail()) : '',
    ...(exit ? { exit: { code: exit.code, signal: exit.signal } } : {}),
  };
}
