import type { McpServerConfig } from '../contracts/config-types.js';
import type { ProtocolVerdict } from '../contracts/connection-types.js';

// Which era a dual-era stdio server is spoken to in, in `auto` mode (docs/decisions.md,
// "Dual-era stdio servers without extensions speak the legacy era", and "First contact with a
// stdio server: `initialize` first"): the legacy one, unless the server declares an extension
// (the Tasks extension needs 2026-07-28) or refuses `initialize`. The modern era costs about 80 µs of wall time and 30-40 µs of client CPU per
// stdio call (the client's per-request envelope and result checks); over stdio it adds only
// the parking of elicitations as `input_required`, which a `{ pin: '2026-07-28' }` keeps.

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** True for a stdio declaration (`type` absent or `stdio`). */
export function isStdioConfig(config: McpServerConfig): boolean {
  return config.type === undefined || config.type === 'stdio';
}

/**
 * True when a `server/discover` result leaves the era to Muster: it is one (it lists its
 * versions) and declares no extension (`capabilities.extensions` absent or empty). Such a
 * stdio server is spoken to in the legacy era when it also answers `initialize`.
 */
export function prefersLegacyEra(discover: unknown): boolean {
  if (!isObject(discover) || !Array.isArray(discover['supportedVersions'])) return false;
  return !declaresExtension(discover['capabilities']);
}

/**
 * True when server capabilities (of a `server/discover` result or a legacy `initialize`
 * answer) declare an extension: `extensions` holds at least one.
 */
export function declaresExtension(capabilities: unknown): boolean {
  const extensions = isObject(capabilities) ? capabilities['extensions'] : undefined;
  return isObject(extensions) && Object.keys(extensions).length > 0;
}

/**
 * A remembered verdict as the era choice reads it now: a modern verdict of a stdio server
 * whose discover result {@link prefersLegacyEra}, and which was not learned from a failed
 * legacy trial (`legacyRefused`, `legacyFailed`), is a legacy one (verdicts saved before the
 * choice); the verdict returned is then a new object, never `verdict` itself. A server that
 * does not take `initialize` then fails that connect in whatever way, and the derived verdict
 * is dropped and negotiated again (`openWithVerdict`).
 */
export function verdictForStdioChoice(
  config: McpServerConfig,
  verdict: ProtocolVerdict | undefined,
): ProtocolVerdict | undefined {
  if (verdict?.kind !== 'modern' || !isStdioConfig(config)) return verdict;
  if (verdict.legacyRefused === true || verdict.legacyFailed === true) return verdict;
  return prefersLegacyEra(verdict.discover) ? { kind: 'legacy' } : verdict;
}
