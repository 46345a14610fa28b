import type { CallToolResult } from '@modelcontextprotocol/client';
import { OAUTH_DEFAULTS, authError, oauthReasonOf } from '../auth/index.js';
import { McpError } from '../errors/index.js';
import { SecretRegistry, raceAbort } from '../util/index.js';
import type { McpOptions } from './config-types.js';
import { findInCauseChain } from './cause-chain.js';
import type { Connector } from './connector.js';
import type { CallOptions, McpConnection } from './mcp-connection.js';
import { MCP_DEFAULTS } from './mcp-defaults.js';
import type { Emit } from './mcp-defaults.js';
import { clientErrorOf, insufficientScopeOf } from './client-errors.js';
import { classifyCallError, describeError } from './mcp-errors.js';
import type { ServerEntry } from './server-entry.js';
import type { ServerRegistry } from './server-registry.js';
import type { ToolIndex } from './tool-index.js';

/** The bounds of one operation. */
export interface OperationOptions {
  readonly signal: AbortSignal;
  /** Per-request timeout (reset by progress); default: the server's or `mcp.operation`'s. */
  readonly timeoutMs?: number;
  readonly maxTotalTimeoutMs?: number;
}

/** The bounds an operation runs with, defaults applied. */
export interface ResolvedOperationOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs?: number;
}

/**
 * Runs operations on a server's live connection. An expired HTTP session (404: the server
 * never saw the request) is renewed once, without the caller noticing; concurrent callers
 * share one renewal, which belongs to no caller: one caller giving up stops only its wait.
 */
export class OperationRunner {
  readonly #lifetime = new AbortController();

  constructor(
    private readonly registry: ServerRegistry,
    private readonly connector: Connector,
    private readonly index: ToolIndex,
    private readonly options: McpOptions,
    private readonly background: Emit,
  ) {}

  /**
   * Runs `operation` on the connection of `server`. Rejects with an `McpError` whose
   * `details.reason` is `not-sent` when the server is not connected; other failures are the
   * operation's own.
   */
  async withConnection<T>(
    server: string,
    operation: (connection: McpConnection, options: ResolvedOperationOptions) => Promise<T>,
    options: OperationOptions,
  ): Promise<T> {
    const entry = this.registry.get(server);
    const connection = entry?.connection;
    if (!entry || !connection || connection.closed) throw notConnected(server);
    const resolved = this.#resolve(entry, options);
    try {
      return entry.oauth
        ? await this.#signedIn(entry, () => operation(connection, resolved), options.signal)
        : await operation(connection, resolved);
    } catch (err) {
      // An expired HTTP session (404) means the server never saw the request: start a new
      // session and send it once more.
      if (entry.type !== 'http' || !sessionExpired(err) || options.signal.aborted) throw err;
      const fresh = await raceAbort(
        this.#renewSession(entry, connection),
        options.signal,
        `a call to '${server}'`,
      ).catch((renewal: unknown) => {
        throw options.signal.aborted ? renewal : err;
      });
      return operation(fresh, resolved);
    }
  }

  /** Calls a tool by server and original name. Tool-level failures throw `ToolError`s. */
  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: Omit<CallOptions, 'timeoutMs'> & {
      readonly toolName?: string;
      readonly timeoutMs?: number;
    },
  ): Promise<CallToolResult> {
    let timeoutMs: number = MCP_DEFAULTS.timeoutMs;
    try {
      return await this.withConnection(
        server,
        (c, bounds) => {
          timeoutMs = bounds.timeoutMs;
          return c.callTool(tool, args, {
            ...bounds,
            ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          });
        },
        options,
      );
    } catch (err) {
      throw classifyCallError(err, {
        toolName: options.toolName ?? tool,
        server,
        signal: options.signal,
        timeoutMs,
        secrets: this.registry.get(server)?.secrets ?? NO_SECRETS,
      });
    }
  }

  /**
   * Runs one request of an OAuth server: a `403 insufficient_scope` (refused, so safe to send
   * again) leads to step-up when the host allowed it, within the attempt limit; a token no
   * refresh could renew takes the server to `needs-auth`. Never a login in pull mode.
   */
  async #signedIn<T>(entry: ServerEntry, send: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const session = entry.oauth!;
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (err) {
        if (signal.aborted) throw err;
        const challenge = insufficientScopeOf(err);
        if (challenge !== undefined && attempt < OAUTH_DEFAULTS.stepUpAttempts) {
          await session.stepUp(challenge, signal);
          continue;
        }
        if (challenge !== undefined) {
          throw authError(
            entry.name,
            'insufficient-scope',
            `Server '${entry.name}' still refused the request for lack of scope after ${attempt} attempts; it was not run.`,
            err,
          );
        }
        const fact = clientErrorOf(err);
        if (
          oauthReasonOf(err) === 'login-required' ||
          (fact?.kind === 'sdk' && fact.status === 401)
        ) {
          this.connector.authLost(
            entry,
            describeError(err, entry.name, 'MCP_AUTH_REQUIRED', entry.secrets),
          );
        }
        throw err;
      }
    }
  }

  /** Stops renewals in flight. */
  close(): void {
    this.#lifetime.abort();
  }

  #resolve(entry: ServerEntry, options: OperationOptions): ResolvedOperationOptions {
    const timeoutMs =
      options.timeoutMs ??
      (entry.config.type === 'http' ? entry.config.timeoutMs : undefined) ??
      this.options.operation?.timeoutMs ??
      MCP_DEFAULTS.timeoutMs;
    const maxTotal = options.maxTotalTimeoutMs ?? this.options.operation?.maxTotalTimeoutMs;
    return {
      signal: options.signal,
      timeoutMs,
      ...(maxTotal !== undefined ? { maxTotalTimeoutMs: maxTotal } : {}),
    };
  }

  /** Replaces a connection whose HTTP session expired; every caller shares the renewal. */
  #renewSession(e: ServerEntry, expired: McpConnection): Promise<McpConnection> {
    if (e.connection && e.connection !== expired) return Promise.resolve(e.connection);
    e.renewing ??= (async () => {
      try {
        const { connection, tools } = await this.connector.open(
          e,
          this.#lifetime.signal,
          e.verdict,
        );
        if (!this.registry.isLive(e)) {
          await connection.close();
          throw notConnected(e.name);
        }
        e.connection = connection;
        await expired.close();
        this.index.publish(e, tools, 'refreshed', this.background);
        return connection;
      } finally {
        delete e.renewing;
      }
    })();
    const renewing = e.renewing;
    renewing.catch(() => undefined);
    return renewing;
  }
}

/** For a server unregistered during the call: token-like text is still masked. */
const NO_SECRETS = new SecretRegistry();

function notConnected(server: string): McpError {
  return new McpError(
    'MCP_OPERATION_FAILED',
    `Server '${server}' is not connected: the request was not sent.`,
    { server, details: { server, reason: 'not-sent' } },
  );
}

/** True for the client's answer to an expired Streamable HTTP session (HTTP 404). */
function sessionExpired(err: unknown): boolean {
  return (
    findInCauseChain(err, (e) => (e as { status?: unknown }).status === 404 || undefined) ?? false
  );
}
