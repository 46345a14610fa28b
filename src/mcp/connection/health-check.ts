import type { RequestOptions } from '@modelcontextprotocol/client';
import { findInCauseChain } from '../failures/cause-chain.js';
import { clientErrorOf } from '../failures/client-errors.js';
import { failureReasonOf } from '../failures/failure-reasons.js';
import type { McpConnection } from '../client/mcp-connection.js';
import type { ReconnectSettings } from './reconnect.js';
import type { ServerEntry } from './server-entry.js';
import type { ServerRegistry } from './server-registry.js';
import { sessionGone } from '../failures/session-loss.js';

/**
 * Checks that a server answers: `ping` on a legacy connection, `server/discover` on a modern
 * one (the 2026-07-28 revision has no `ping`).
 */
export async function pingOnce(connection: McpConnection, request: RequestOptions): Promise<void> {
  await connection.request((client) =>
    connection.era === 'modern' ? client.discover(request) : client.ping(request),
  );
}

/** What the health checks need from their owner. */
export interface HealthCheckOptions {
  readonly registry: ServerRegistry;
  readonly settings: ReconnectSettings;
  /** Aborts when the owner closes: checks in flight stop and report nothing. */
  readonly lifetime: AbortSignal;
  /** True while a request is in flight on the server (no periodic check then). */
  readonly busy: (e: ServerEntry) => boolean;
  /** A check failed: `connection` is gone (the reconnect rules apply). */
  readonly dead: (e: ServerEntry, connection: McpConnection, error: unknown) => void;
  /** The server answered that the HTTP session is gone: open a new one (rejects if it cannot). */
  readonly renew: (e: ServerEntry, expired: McpConnection) => Promise<unknown>;
}

/**
 * Notices dead connections before a run needs them. With `healthCheckIntervalMs`, every
 * connected server with no request in flight is pinged at that interval; a request that
 * failed at the transport ({@link suspectsLoss}) asks for a check at once ({@link verify}).
 * A check is bounded by `healthCheckTimeoutMs`; it never overlaps another check of the same
 * connection. An HTTP session the server forgot is renewed, not counted as a loss. Its timer
 * keeps no process alive and stops at {@link close}.
 */
export class HealthChecks {
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #checks = new WeakMap<McpConnection, Promise<boolean>>();
  /** Every check in flight, for {@link settled}. */
  readonly #inFlight = new Set<Promise<boolean>>();

  constructor(private readonly options: HealthCheckOptions) {}

  /** Starts the periodic checks (when configured); idempotent. */
  start(): void {
    const interval = this.options.settings.healthCheckIntervalMs;
    if (interval === undefined || this.#timer || this.options.lifetime.aborted) return;
    this.#timer = setInterval(() => this.#tick(), interval);
    this.#timer.unref();
  }

  /** Stops the periodic checks. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Checks `connection` of `e` now (or joins the check in flight); resolves false when it is
   * gone, after `dead` was told. An answer of any kind, a JSON-RPC error included, is alive.
   */
  verify(e: ServerEntry, connection: McpConnection): Promise<boolean> {
    const running = this.#checks.get(connection);
    if (running) return running;
    const check: Promise<boolean> = this.#check(e, connection).finally(() => {
      this.#checks.delete(connection);
      this.#inFlight.delete(check);
    });
    this.#checks.set(connection, check);
    this.#inFlight.add(check);
    return check;
  }

  /** True while a check is in flight. */
  get checking(): boolean {
    return this.#inFlight.size > 0;
  }

  /**
   * Resolves once every check in flight has its verdict: a run that starts while a suspect
   * connection is being checked uses what the check decided (a reconnect when it was gone),
   * not a connection about to be taken down under its calls.
   */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }

  #tick(): void {
    if (this.options.lifetime.aborted) return this.close();
    for (const e of this.options.registry.entries()) {
      const c = e.connection;
      if (e.status !== 'connected' || !c || c.closed) continue;
      if (this.options.busy(e) || this.#checks.has(c)) continue;
      void this.verify(e, c);
    }
  }

  async #check(e: ServerEntry, connection: McpConnection): Promise<boolean> {
    const { lifetime, settings, registry } = this.options;
    const timeout = settings.healthCheckTimeoutMs;
    const signal = AbortSignal.any([lifetime, AbortSignal.timeout(timeout)]);
    try {
      if (connection.closed) throw new Error('closed');
      await pingOnce(connection, { signal, timeout });
      return true;
    } catch (err) {
      if (lifetime.aborted) return false;
      if (findInCauseChain(err, clientErrorOf)?.kind === 'protocol') return true;
      if (!registry.isLive(e) || e.connection !== connection) return false;
      // the server is there but forgot the session: a new session, as for a request
      if (e.type === 'http' && sessionGone(err)) {
        const renewed = await this.options.renew(e, connection).then(
          () => true,
          () => false,
        );
        if (renewed || lifetime.aborted) return renewed;
      }
      if (registry.isLive(e) && e.connection === connection) this.options.dead(e, connection, err);
      return false;
    }
  }
}

/** Client error codes of a transport that failed (a check tells whether the server is gone). */
const TRANSPORT_CODES: ReadonlySet<string> = new Set([
  'CONNECTION_CLOSED',
  'SEND_FAILED',
  'REQUEST_TIMEOUT',
]);

/**
 * True when a request failed at the transport, so its connection may be gone: a lost response
 * stream, a closed connection, a failed send or a timeout, an HTTP 5xx, a socket error
 * (`ECONNRESET`, `ECONNREFUSED`, undici's `UND_ERR_SOCKET`…). Never for an answer of the
 * server (a JSON-RPC error, an unusable result), a response over the byte limit or an abort.
 */
export function suspectsLoss(err: unknown): boolean {
  const own = failureReasonOf(err)?.reason;
  if (own !== undefined) return own !== 'response-too-large';
  const fact = findInCauseChain(err, clientErrorOf);
  if (fact?.kind === 'protocol') return false;
  if (fact?.kind === 'sdk' && (TRANSPORT_CODES.has(fact.code) || (fact.status ?? 0) >= 500))
    return true;
  return (
    findInCauseChain(err, (e) => {
      const code = (e as { code?: unknown }).code;
      return (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) || undefined;
    }) ?? false
  );
}
