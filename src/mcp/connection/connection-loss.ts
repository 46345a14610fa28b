import { needsSignIn } from './auth-connect.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import type { McpConnection } from '../client/mcp-connection.js';
import { describeError } from '../failures/mcp-errors.js';
import { Reconnector } from './reconnect.js';
import type { ReconnectSettings } from './reconnect.js';
import type { ServerEntry } from './server-entry.js';
import type { ServerRegistry } from './server-registry.js';
import type { ToolIndex } from './tool-index.js';
import { describeExit } from '../failures/exit-status.js';

/** What taking down lost connections needs from the connector. */
export interface ConnectionLossOptions {
  readonly registry: ServerRegistry;
  readonly index: ToolIndex;
  readonly settings: ReconnectSettings;
  /** Events outside any run: every step of a loss and its reconnect is one. */
  readonly background: Emit;
  /** Aborts when the owner closes: no reconnect outlives it. */
  readonly lifetime: AbortSignal;
  /**
   * One reconnect: a new transport with the remembered verdict, initialized, listed,
   * restored and published. True when `e` has a live connection after it; rejects with the
   * failure.
   */
  readonly reopen: (e: ServerEntry, signal: AbortSignal) => Promise<boolean>;
  /** Reports an error as a sanitized `mcp.diagnostic`. */
  readonly diagnostic: (e: ServerEntry, error: unknown) => void;
}

/**
 * What happens when a live connection is gone (SPEC 7.3, 7.4). Its tools go at once and the
 * status stops saying `connected`. Without `mcp.reconnect.enabled` the server is `failed`
 * and reconnected at its next use; with it, `reconnecting` while the {@link Reconnector}
 * tries again in the background (a `reconnecting` status after each failed attempt), then
 * `connected`, or `failed` with the reason after `maxAttempts` (then reconnected at the next
 * use), or `needs-auth` when only a sign-in can help (never a login in the background).
 */
export class ConnectionLoss {
  readonly reconnector: Reconnector;

  constructor(private readonly o: ConnectionLossOptions) {
    this.reconnector = new Reconnector(o.settings, o.lifetime, {
      attempt: (e, signal) => this.#attempt(e, signal),
      failed: (e, error, attempt, final) => this.#failed(e, error, attempt, final),
    });
  }

  /**
   * Takes down `connection` of `e`, known to be gone (it closed, a check failed): it is
   * closed, its tools go, then the reconnect rules apply. Nothing when it is no longer the
   * live connection of a registered entry.
   */
  lost(e: ServerEntry, connection: McpConnection, cause?: unknown): void {
    const { registry, index, background } = this.o;
    if (!registry.isLive(e) || e.connection !== connection) return;
    index.drop(e);
    delete e.connection;
    void connection.close();
    if (cause !== undefined) this.o.diagnostic(e, cause);
    const exit = connection.exit;
    const how = exit ? describeExit(exit) : 'disconnected';
    if (this.o.settings.enabled) {
      e.retry = false;
      registry.setStatus(e, 'reconnecting', background, {
        code: 'MCP_DISCONNECTED',
        message: `Server '${e.name}' ${how}; it is being reconnected.`,
      });
      this.reconnector.start(e);
      return;
    }
    e.retry = true;
    registry.setStatus(e, 'failed', background, {
      code: 'MCP_DISCONNECTED',
      message: `Server '${e.name}' ${how}; it will be reconnected at the next run.`,
    });
  }

  async #attempt(e: ServerEntry, signal: AbortSignal): Promise<'connected' | 'stop'> {
    const { registry, background } = this.o;
    try {
      return (await this.o.reopen(e, signal)) ? 'connected' : 'stop';
    } catch (err) {
      if (signal.aborted || !registry.isLive(e) || !needsSignIn(err)) throw err;
      // a sign-in waiting for its callback must not be replaced by the next run's connect
      e.retry = !e.oauth?.waiting;
      registry.setStatus(
        e,
        'needs-auth',
        background,
        describeError(err, e.name, 'MCP_AUTH_REQUIRED', e.secrets),
      );
      return 'stop';
    }
  }

  #failed(e: ServerEntry, error: unknown, attempt: number, final: boolean): void {
    const { registry, background, settings } = this.o;
    if (!registry.isLive(e)) return;
    const { code, message } = describeError(error, e.name, 'MCP_CONNECTION_FAILED', e.secrets);
    const max = settings.maxAttempts;
    if (!final) {
      registry.setStatus(e, 'reconnecting', background, {
        code,
        message: `${message} (reconnect attempt ${attempt} of ${max}; trying again)`,
      });
      return;
    }
    e.retry = true;
    registry.setStatus(e, 'failed', background, {
      code,
      message: `${message} (gave up after ${max} reconnect attempts; it will be reconnected at its next use)`,
    });
  }
}
