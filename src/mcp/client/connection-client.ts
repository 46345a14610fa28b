import type { Client } from '@modelcontextprotocol/client';
import { CLIENT_INFO } from '../contracts/connection-types.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import type { ConnectionSpecOf, ProbeBounds } from '../contracts/connection-types.js';
import { OUTPUT_CHECKED_BY_MUSTER } from './output-check.js';
import { resultSchemaOnce } from './call-result-schema.js';
import { pinsModernVersion } from '../config/protocol-pins.js';

// The server notifications a connection forwards to `onNotification`: list changes through
// the client's `listChanged` option (it owns those methods), the rest as plain handlers.

/** The tools list-changed notification. */
const TOOLS_CHANGED = 'notifications/tools/list_changed';
/** Server notifications handed to `onNotification` (list changes go through `listChanged`). */
const FORWARDED = [
  'notifications/resources/updated',
  'notifications/message',
  'notifications/elicitation/complete',
] as const;

/** The `listChanged` options of prompts and resources, each reporting to `notify`. */
function listChangedNotices(notify: (method: string, params: unknown) => void) {
  const on = (method: string) => ({
    autoRefresh: false,
    debounceMs: 0,
    onChanged: () => notify(method, undefined),
  });
  return {
    prompts: on('notifications/prompts/list_changed'),
    resources: on('notifications/resources/list_changed'),
  };
}

/**
 * The official client of one connection, configured from its spec: the capabilities, the
 * protocol mode and probe bounds, tool list changes reported (never auto-refreshed: the next
 * run re-lists), the request handlers installed and the notifications forwarded. Tool output
 * is left to Muster's own check (see `outputCheckFor`).
 */
export function createClient(
  ClientClass: typeof Client,
  spec: Pick<
    ConnectionSpecOf<unknown>,
    'capabilities' | 'mode' | 'probe' | 'handlers' | 'onToolsChanged' | 'onNotification'
  >,
  remainingMs: number = MCP_DEFAULTS.timeoutMs,
): Client {
  // a pin of a pre-2026 version is the plain `initialize` handshake offering only that one
  const mode = spec.mode;
  const legacyPin = typeof mode === 'object' && !pinsModernVersion(mode.pin) ? mode.pin : undefined;
  // tools/call with its result schema built once, not per call (call-result-schema.ts)
  const MusterClient = resultSchemaOnce(ClientClass);
  const client = new MusterClient(CLIENT_INFO, {
    capabilities: spec.capabilities ?? {},
    jsonSchemaValidator: OUTPUT_CHECKED_BY_MUSTER,
    versionNegotiation: {
      mode: (legacyPin !== undefined ? 'legacy' : mode) as never,
      probe: probeOptions(spec.probe, remainingMs),
    },
    ...(legacyPin !== undefined ? { supportedProtocolVersions: [legacyPin] } : {}),
    listChanged: {
      tools: {
        autoRefresh: false,
        debounceMs: 0,
        onChanged: () => {
          spec.onToolsChanged();
          spec.onNotification?.(TOOLS_CHANGED, undefined);
        },
      },
      ...(spec.onNotification ? listChangedNotices(spec.onNotification) : {}),
    },
  });
  for (const h of spec.handlers ?? [])
    client.setRequestHandler(h.method as never, h.handler as never);
  const notify = spec.onNotification;
  if (notify) {
    for (const method of FORWARDED)
      client.setNotificationHandler(
        method as never,
        ((n: { params?: unknown }) => notify(method, n.params)) as never,
      );
  }
  return client;
}

/**
 * The client's probe options from Muster's: a probe waits `probeTimeoutMs` (10 s unless set),
 * never past what is left of the connect, and is not re-sent unless `probeMaxRetries` says so.
 * (Without them the client would wait the whole connect timeout, so a silent legacy stdio
 * server would time the connect out instead of being judged legacy.)
 */
function probeOptions(
  probe: ProbeBounds | undefined,
  remainingMs: number,
): { timeoutMs: number; maxRetries: number } {
  return {
    timeoutMs: Math.min(probe?.timeoutMs ?? MCP_DEFAULTS.probeTimeoutMs, remainingMs),
    maxRetries: probe?.maxRetries ?? 0,
  };
}
