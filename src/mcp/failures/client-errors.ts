import type * as ClientModule from '@modelcontextprotocol/client';
import type { SdkErrorCode } from '@modelcontextprotocol/client';
import { once } from '../../util/index.js';
import { findInCauseChain } from './cause-chain.js';

/** The official client's module. */
export type McpClientModule = typeof ClientModule;

let classes:
  | Pick<McpClientModule, 'SdkError' | 'ProtocolError' | 'InsufficientScopeError'>
  | undefined;

/**
 * Loads the official client (once per process: the package root never imports it) and keeps
 * its error classes for {@link clientErrorOf}. Every connection is opened through it, so any
 * error a connection raises is classified against the classes that made it. The promise is
 * shared: under a loader hook (tsx, an instrumentation hook) each `import()` of a loaded module
 * is a round trip to the hook's thread, about 0.3 ms (docs/performance.md).
 */
export const loadClient: () => Promise<McpClientModule> = once(() =>
  import('@modelcontextprotocol/client').then((client) => {
    classes ??= client;
    return client;
  }),
);

/** A typed fact about a client error: what the official client says happened. */
export type ClientErrorFact =
  /** The server answered with a JSON-RPC error: it saw the request. */
  | { readonly kind: 'protocol'; readonly code: number }
  /** A local client error, with its stable code and, for HTTP failures, the status. */
  | { readonly kind: 'sdk'; readonly code: `${SdkErrorCode}`; readonly status?: number };

/** The typed fact of `err` if it is one of the client's errors (by brand), else undefined. */
export function clientErrorOf(err: unknown): ClientErrorFact | undefined {
  if (!classes) return undefined;
  if (classes.ProtocolError.isInstance(err)) return { kind: 'protocol', code: err.code };
  if (classes.SdkError.isInstance(err)) {
    const status = (err.data as { status?: unknown } | undefined)?.status;
    return {
      kind: 'sdk',
      code: err.code,
      ...(typeof status === 'number' ? { status } : {}),
    };
  }
  return undefined;
}

/** The `data` of the client's `ProtocolError` `err` (a JSON-RPC error answer), else undefined. */
export function protocolErrorDataOf(err: unknown): unknown {
  return classes?.ProtocolError.isInstance(err) ? err.data : undefined;
}

/**
 * The limit of the client's `REQUEST_TIMEOUT` error `err`, from its typed `data`: `timeout` when
 * the per-request timer fired, `maxTotalTimeout` when progress came past the total deadline.
 * Undefined for any other error, and for a timeout the client raised for an aborted signal
 * (it carries no data).
 */
export function clientTimeoutOf(
  err: unknown,
): { readonly limit: 'timeout' | 'maxTotalTimeout'; readonly ms: number } | undefined {
  if (!classes?.SdkError.isInstance(err) || err.code !== 'REQUEST_TIMEOUT') return undefined;
  const data = err.data as { timeout?: unknown; maxTotalTimeout?: unknown } | undefined;
  if (typeof data?.maxTotalTimeout === 'number')
    return { limit: 'maxTotalTimeout', ms: data.maxTotalTimeout };
  if (typeof data?.timeout === 'number') return { limit: 'timeout', ms: data.timeout };
  return undefined;
}

/**
 * The challenge of a `403 insufficient_scope` answer, when `err` (or its cause chain) is the
 * client's `InsufficientScopeError`: the server refused the request before running it.
 */
export function insufficientScopeOf(
  err: unknown,
): { readonly scope?: string; readonly resourceMetadataUrl?: URL } | undefined {
  const c = classes;
  if (!c) return undefined;
  return findInCauseChain(err, (e) =>
    c.InsufficientScopeError.isInstance(e)
      ? {
          ...(e.requiredScope === undefined ? {} : { scope: e.requiredScope }),
          ...(e.resourceMetadataUrl === undefined
            ? {}
            : { resourceMetadataUrl: e.resourceMetadataUrl }),
        }
      : undefined,
  );
}

/** The client error codes raised before anything reached the transport. */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set<`${SdkErrorCode}`>([
  'NOT_CONNECTED',
  'NOT_INITIALIZED',
  'CAPABILITY_NOT_SUPPORTED',
  'METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION',
]);

/** The client error codes of a request the server answered (the answer was unusable). */
export const ANSWERED_CODES: ReadonlySet<string> = new Set<`${SdkErrorCode}`>([
  'INVALID_RESULT',
  'UNSUPPORTED_RESULT_TYPE',
  'INPUT_REQUIRED_ROUNDS_EXCEEDED',
]);
