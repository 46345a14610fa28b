import { deserializeMessage } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';

const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when `value` is a result response that the client's `JSONRPCMessageSchema` accepts
 * and returns unchanged: exactly `jsonrpc: "2.0"`, a string or safe integer `id`, a `result`
 * object without `_meta` (whose server-info entry the schema may rewrite) or `__proto__`,
 * nothing else.
 */
function isPlainResultResponse(value: unknown): value is JSONRPCMessage {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') return false;
  const { id, result } = value;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  if (!isPlainObject(result) || Object.hasOwn(result, '_meta')) return false;
  // the schema copies the result's own keys, and a `__proto__` key would become its prototype
  if (Object.hasOwn(result, '__proto__')) return false;
  let keys = 0;
  for (const key in value) {
    if (!RESULT_KEYS.has(key)) return false;
    keys++;
  }
  return keys === 3;
}

/**
 * Reads one line of a stdio server as a JSON-RPC message, as the client's own
 * `deserializeMessage` does (`JSON.parse`, then its `JSONRPCMessageSchema`), but without the
 * schema for the message a call waits for: a plain result response (see above) is used as
 * parsed, since the schema would return the same value. Everything else (requests,
 * notifications, errors, results with `_meta`, anything malformed) goes through the client's
 * function, so what is accepted, rejected and thrown is unchanged.
 *
 * @throws SyntaxError when the line is not JSON; the schema's error when it is no message.
 */
export function decodeMessageLine(line: string): JSONRPCMessage {
  const parsed: unknown = JSON.parse(line);
  if (isPlainResultResponse(parsed)) return parsed;
  return deserializeMessage(line);
}
