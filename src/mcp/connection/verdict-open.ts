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
 * cannot be reached keeps it, so reconnects to it stay cheap), and the verdict
 * learned is remembered. With `signIn`, an OAuth server may be signed in on the way
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
  const attempt = (v: ProtocolVerdict | undefined) =>
    signIn ? openSignedIn(e, () => o.open(e, signal, v), signal, o.lifetime) : o.open(e, signal, v);
  let opened: Opened;
  try {
    opened = await attempt(verdict);
  } catch (err) {
    // A remembered verdict may be stale (the server changed): forget it and negotiate again.
    // A server that is down or unreachable says nothing about its protocol: keep it then.
    if (!verdict || signal.aborted || needsSignIn(err) || wasNotSent(err) || suspectsLoss(err))
      throw err;
    remembered = undefined;
    delete e.verdict;
    if (cacheKey) await verdicts!.delete(cacheKey);
    opened = await attempt(undefined);
  }
  const learned = opened.connection.verdict;
  if (learned && o.registry.isLive(e)) {
    e.verdict = learned;
    if (cacheKey && JSON.stringify(learned) !== JSON.stringify(remembered))
      await verdicts!.set(cacheKey, learned);
  }
  return opened;
}
