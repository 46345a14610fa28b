import type { RequestOptions } from '@modelcontextprotocol/client';
import { McpError, MusterError, abortedError } from '../errors/index.js';
import type { McpConnection } from './mcp-connection.js';
import type { OperationRunner, ResolvedOperationOptions } from './operation-runner.js';
import type { McpOperationOptions } from './operation-types.js';
import { withRetry } from './retry.js';
import type { OperationKind } from './retry.js';
import type { ServerRegistry } from './server-registry.js';

/** One request on a live connection, with its resolved bounds. */
export type Operation<T> = (
  connection: McpConnection,
  request: RequestOptions,
  bounds: ResolvedOperationOptions,
) => Promise<T>;

/**
 * Runs the operations of `agent.mcp` and `McpClientManager` (everything but the model's tool
 * calls): the connection from the runner, the bounds resolved, retries where allowed, and
 * failures as `McpError`s whose messages carry no secrets.
 */
export class OperationContext {
  /** Connects a server that is not connected yet (set by the operations facade). */
  connect?: (server: string) => Promise<void>;

  constructor(
    private readonly runner: OperationRunner,
    private readonly registry: ServerRegistry,
    private readonly lifetime: AbortSignal,
  ) {}

  /** Runs `op` on `server`; `kind` decides whether `options.retry` may apply. */
  async run<T>(
    server: string,
    what: string,
    kind: OperationKind,
    options: McpOperationOptions | undefined,
    op: Operation<T>,
  ): Promise<T> {
    this.#known(server);
    const entry = this.registry.get(server);
    if (this.connect && (!entry?.connection || entry.connection.closed)) await this.connect(server);
    const signal = options?.signal
      ? AbortSignal.any([options.signal, this.lifetime])
      : this.lifetime;
    return withRetry(kind, options?.retry, signal, () =>
      this.runner
        .withConnection(server, (c, bounds) => op(c, requestOptions(bounds), bounds), {
          signal,
          ...(options?.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          ...(options?.maxTotalTimeoutMs !== undefined
            ? { maxTotalTimeoutMs: options.maxTotalTimeoutMs }
            : {}),
        })
        .catch((err: unknown) => {
          throw this.#failure(server, what, err, signal);
        }),
    );
  }

  #known(server: string): void {
    if (!this.registry.has(server))
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `No MCP server is registered as '${server}': register it first.`,
        { details: { server } },
      );
  }

  #failure(server: string, what: string, err: unknown, signal: AbortSignal): MusterError {
    if (MusterError.isInstance(err)) return err;
    const secrets = this.registry.get(server)?.secrets;
    const raw = err instanceof Error ? err.message : String(err);
    const text = secrets ? secrets.redact(raw) : raw;
    if (signal.aborted) return abortedError(`${what} on '${server}'`, err);
    const protocolCode = (err as { code?: unknown } | null)?.code;
    return new McpError('MCP_OPERATION_FAILED', `${what} on '${server}' failed: ${text}`, {
      server,
      cause: err,
      details: { server, ...(typeof protocolCode === 'number' ? { protocolCode } : {}) },
    });
  }
}

function requestOptions(bounds: ResolvedOperationOptions): RequestOptions {
  return {
    signal: bounds.signal,
    timeout: bounds.timeoutMs,
    resetTimeoutOnProgress: true,
    ...(bounds.maxTotalTimeoutMs !== undefined
      ? { maxTotalTimeout: bounds.maxTotalTimeoutMs }
      : {}),
  };
}
