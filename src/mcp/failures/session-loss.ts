import { findInCauseChain } from './cause-chain.js';
import { clientErrorOf } from './client-errors.js';

/** JSON-RPC code of the SDK's `Bad Request` answers (`No valid session ID provided`, …). */
const BAD_REQUEST = -32000;
/** JSON-RPC code of `Session not found` (what `@modelcontextprotocol/server` answers). */
const SESSION_NOT_FOUND = -32001;

/**
 * True when a Streamable HTTP server answered a request with "this session is gone", on
 * typed facts only (the HTTP status of the client's error and the JSON-RPC error code in its
 * body), never message text:
 * - 404 (the protocol's answer for an unknown or terminated session; the official server
 *   sends `-32001 Session not found` with it);
 * - 400 with `-32000` (the SDK's "Bad Request: No valid session ID provided", which servers
 *   built on the SDK examples, such as server-everything, send after a restart) or `-32001`.
 *
 * Each of them is an HTTP-level refusal sent before the request was dispatched: the server
 * cannot have run it, so it may be sent again on a new session. A `-32001` inside a normal
 * (200) JSON-RPC answer is not counted: a proxy may forward another server's error under it.
 */
export function sessionGone(err: unknown): boolean {
  return (
    findInCauseChain(err, (e) => {
      if ((e as { status?: unknown }).status === 404) return true;
      const fact = clientErrorOf(e);
      if (fact?.kind !== 'sdk' || fact.status === undefined) return undefined;
      if (fact.status === 404) return true;
      if (fact.status !== 400) return undefined;
      const code = rpcErrorCode((e as { data?: { text?: unknown } }).data?.text);
      return code === BAD_REQUEST || code === SESSION_NOT_FOUND || undefined;
    }) ?? false
  );
}

/** The `error.code` of a JSON-RPC error response body, if `text` is one. */
function rpcErrorCode(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown } } | null;
    const code = body?.error?.code;
    return typeof code === 'number' ? code : undefined;
  } catch {
    return undefined;
  }
}
