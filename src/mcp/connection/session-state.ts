import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { McpConnection } from '../client/mcp-connection.js';
import type { RememberedSession, ServerEntry } from './server-entry.js';

/** The session state of `e`, created on first use. */
function rememberedOf(e: ServerEntry): RememberedSession {
  e.remembered ??= { subscriptions: new Set() };
  return e.remembered;
}

/** Records a resource subscription the server accepted (`subscribeResource`). */
export function rememberSubscription(e: ServerEntry, uri: string): void {
  rememberedOf(e).subscriptions.add(uri);
}

/**
 * Forgets a resource subscription (`unsubscribeResource`), before it is sent: whatever the
 * outcome, the host no longer wants it, so a new session is not subscribed again.
 */
export function forgetSubscription(e: ServerEntry, uri: string): void {
  e.remembered?.subscriptions.delete(uri);
}

/** Records the logging level the server accepted (`setLoggingLevel`). */
export function rememberLoggingLevel(e: ServerEntry, level: LoggingLevel): void {
  rememberedOf(e).loggingLevel = level;
}

/**
 * Tells a new connection of `e` what the host asked of the previous one: the logging level,
 * then each resource subscription. A subscription the server now refuses is forgotten (the
 * resource may be gone); every failure is handed to `report` and never fails the connect.
 */
export async function restoreSession(
  e: ServerEntry,
  connection: McpConnection,
  bounds: { readonly signal: AbortSignal; readonly timeoutMs: number },
  report: (error: unknown) => void,
): Promise<void> {
  const remembered = e.remembered;
  if (!remembered) return;
  const request = { signal: bounds.signal, timeout: bounds.timeoutMs };
  const level = remembered.loggingLevel;
  if (level !== undefined) {
    await connection
      .request((client) => client.setLoggingLevel(level, request))
      .catch((err: unknown) => report(err));
  }
  for (const uri of [...remembered.subscriptions]) {
    if (bounds.signal.aborted) return;
    await connection
      .request((client) => client.subscribeResource({ uri }, request))
      .catch((err: unknown) => {
        if (bounds.signal.aborted) return;
        remembered.subscriptions.delete(uri);
        report(err);
      });
  }
}
