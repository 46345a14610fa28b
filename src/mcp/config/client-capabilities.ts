import type { ClientCapabilities } from '@modelcontextprotocol/client';
import type { Check } from './config-checks.js';
import type { McpHandlers } from '../contracts/handler-types.js';

/**
 * The client capabilities a connection declares, derived from the handlers given: no
 * handler, no capability (servers such as server-everything then hide the tools that need it).
 * Elicitation is declared when `elicits` (a handler, or the elicitation hooks alone, answer).
 * `extensions` (`mcp.clientExtensions`) is declared as given, and only when given: a host
 * advertises an extension such as MCP Apps only when it can honour it.
 */
export function deriveCapabilities(
  handlers: McpHandlers | undefined,
  extensions?: Readonly<Record<string, object>>,
  elicits: boolean = handlers?.elicitation !== undefined,
): ClientCapabilities {
  return {
    ...(handlers?.roots !== undefined ? { roots: { listChanged: true } } : {}),
    ...(handlers?.sampling !== undefined ? { sampling: {} } : {}),
    ...(elicits ? { elicitation: { form: {}, url: {} } } : {}),
    ...(extensions !== undefined && Object.keys(extensions).length > 0
      ? { extensions: structuredClone(extensions) as ClientCapabilities['extensions'] }
      : {}),
  };
}

/** An extension identifier: `<vendor prefix>/<name>`, e.g. `io.modelcontextprotocol/ui`. */
const EXTENSION_ID = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.getPrototypeOf(v) === Object.prototype;

function isJson(v: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJson(x, depth + 1));
  return isPlainObject(v) && Object.values(v).every((x) => isJson(x, depth + 1));
}

/**
 * Checks `mcp.clientExtensions`: an object keyed by extension identifier
 * (`<vendor prefix>/<name>`) whose values are JSON objects (the extension's settings).
 */
export const clientExtensionsCheck: Check = (v, path, issues) => {
  if (!isPlainObject(v)) {
    issues.push({
      path,
      message: 'must be an object of { "<vendor>/<extension>": { ...settings } }',
    });
    return;
  }
  for (const [key, value] of Object.entries(v)) {
    const at = `${path}[${JSON.stringify(key)}]`;
    if (!EXTENSION_ID.test(key))
      issues.push({
        path: at,
        message:
          "is not an extension identifier (use '<vendor prefix>/<name>', e.g. 'io.modelcontextprotocol/ui')",
      });
    else if (!isPlainObject(value) || !isJson(value))
      issues.push({
        path: at,
        message: 'must be a JSON object (the extension settings; {} for none)',
      });
  }
};
