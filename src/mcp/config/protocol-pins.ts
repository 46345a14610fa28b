import { createRequire } from 'node:module';
import { MusterError } from '../../errors/index.js';
import type { McpOptions } from '../contracts/config-types.js';

/**
 * The modern protocol revisions a pin may name: those the official client negotiates through
 * `server/discover`. The client keeps this list internal (it exports only its `initialize`
 * list, {@link legacyProtocolVersions}), so it is written here, beside the one place that
 * reads it.
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

let legacy: readonly string[] | undefined;

/**
 * The pre-2026 revisions the official client speaks through `initialize`: its exported
 * `SUPPORTED_PROTOCOL_VERSIONS`. Read synchronously (construction is synchronous, and the
 * package root never imports the client), once, and only when a host pins such a version.
 */
export function legacyProtocolVersions(): readonly string[] {
  legacy ??= (
    createRequire(import.meta.url)('@modelcontextprotocol/client') as {
      SUPPORTED_PROTOCOL_VERSIONS: readonly string[];
    }
  ).SUPPORTED_PROTOCOL_VERSIONS;
  return legacy;
}

/** True for a pin of a modern revision (negotiated by `server/discover`). */
export function pinsModernVersion(pin: string): boolean {
  return MODERN_PROTOCOL_VERSIONS.includes(pin);
}

/**
 * Checks `mcp.protocol.mode` at construction: a pinned version must be one the client speaks
 * (a modern revision, or one of the client's `initialize` versions), else
 * `INVALID_CONFIGURATION` naming the supported ones.
 */
export function checkProtocolPin(protocol: McpOptions['protocol']): void {
  const mode = protocol?.mode;
  if (typeof mode !== 'object' || pinsModernVersion(mode.pin)) return;
  const older = legacyProtocolVersions();
  if (older.includes(mode.pin)) return;
  const supported = [...MODERN_PROTOCOL_VERSIONS, ...older];
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `Invalid mcp options: protocol.mode pins ${JSON.stringify(mode.pin)}, a protocol version the MCP client does not speak. Pin one of ${supported.join(', ')}, or use 'auto' (modern first, legacy fallback) or 'legacy'.`,
    { details: { field: 'protocol.mode.pin', supported } },
  );
}
