import { needsSignIn, openSignedIn } from './auth-connect.js';
import type { McpOptions } from '../contracts/config-types.js';
import { wasNotSent } from '../failures/failure-reasons.js';
import { suspectsLoss } from './health-check.js';
import type { McpConnection, ProtocolVerdict } from '../client/mcp-connection.js';
import type { DiscoveredTool } from './mcp-discovery.js';
import type { ServerEntry } from './server-entry.js';
import type { ServerRegistry } from './server-registry.js';
import { verdictForStdioChoice } from '../client/era-choice.js';
import { FileVerdictCache } from './verdict-cache.js';
import type { VerdictCache } from './verdict-cache.js';

/** A freshly opened connection and the tools it listed. */
export interface Opened {
  readonly connection: McpConnection;
  readonly tools: DiscoveredTool[];
}

/** What opening with a remembered verdict needs. */
export interface VerdictOpenOptions {
  readonly registry: ServerRegistry;
  readonly options: McpOptions;
  readonly verdicts?: VerdictCache;
  /** Opens one connection with `verdict` (undefined: negotiate). */
  readonly open: (
    e: ServerEntry,
    signal: AbortSignal,
    verdict: ProtocolVerdict | undefined,
  ) => Promise<Opened>;
  /** Bounds a pull-mode login, which outlives the run that started it. */
  readonly lifetime: AbortSignal;
}

/**
 * Opens a connection with the remembered protocol verdict (the entry's, else the cache's; a
 * stdio server's modern verdict without extensions, saved before the era choice, read as
 * legacy); a verdict the server no longer accepts is forgotten and negotiation redone (a server that
 * cannot be reached keeps it, so reconnects to it stay cheap; a verdict read as legacy is
 * dropped on any failure, since a modern-only server may end on `initialize` or stay silent),
 * and the verdict learned is remembered. With `signIn`, an OAuth server may be signed in on the way
 * ({@link openSignedIn}); without it (background reconnects) a needed login just fails.
 */
export async function openWithVerdict(
  e: ServerEntry,
  o: VerdictOpenOptions,
  signal: AbortSignal,
  signIn: boolean,
): Promise<Opened> {
  const { options, verdicts } = o;
  const auto = (options.protocol?.mode ?? 'auto') === 'auto';
  const cacheKey = auto && e.type !== 'sdk' && verdicts ? FileVerdictCache.keyOf(e.key) : undefined;
  let remembered = auto
    ? (e.verdict ?? (cacheKey ? await verdicts!.get(cacheKey) : undefined))
    : undefined;
  // a verdict saved before the stdio era choice follows it (see `verdictForStdioChoice`)
  const verdict = verdictForStdioChoice(e.config, remembered);
  // derived by that reading, not remembered as it is
  const derived = verdict !== remembered;
  const attempt = (v: ProtocolVerdict | undefined) =>
    signIn ? openSignedIn(e, () => o.open(e, signal, v), signal, o.lifetime) : o.open(e, signal, v);
  let opened: Opened;
  try {
    opened = await attempt(verdict);
  } catch (err) {
    // A remembered verdict may be stale (the server changed): forget it and negotiate again.
    // A server that is down or unreachable says nothing about its protocol: keep it then. A
    // derived one is dropped whatever the failure: a modern-only server that ends on
    // `initialize`, or never answers it, fails as if lost, and would fail so until it expired.
    if (!verdict || signal.aborted || needsSignIn(err)) throw err;
    if (!derived && (wasNotSent(err) || suspectsLoss(err))) throw err;
    remembered = undefined;
    delete e.verdict;
    if (cacheKey) await verdicts!.delete(cacheKey);
    opened = await attempt(undefined);
  }
  const learned = opened.connection.verdict;
  if (learned && o.registry.isLive(e)) {
    e.verdict = learned;
    // saved behind the open, not awaited by it: a startup slot is not held for a file write
    // (the connector waits for the saves once all its servers are open)
    if (cacheKey && JSON.stringify(learned) !== JSON.stringify(remembered))
      void verdicts!.set(cacheKey, learned);
  }
  return opened;
}
