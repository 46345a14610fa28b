/**
 * Helpers of the OAuth tests: a manager signed in to an OAuth world through `mcp.oauth`, and
 * a recorder of what goes over the wire (the real requests still go out; the recorder only
 * reads them, so a test can name the PKCE verifier and the code it must never see echoed).
 */
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import type { McpClientManagerOptions } from '../../src/mcp/mcp-entry.js';
import type { McpOAuthServerOptions } from '../../src/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';

/** The redirect URI of the tests' client: nothing listens there, the browser stops short of it. */
export const REDIRECT_URI = 'http://127.0.0.1:53682/callback';

/** A standalone manager for the world's MCP server as `w`, with OAuth options on top. */
export function managerFor(
  world: OAuthWorld,
  oauth: Partial<McpOAuthServerOptions> = {},
  options: Omit<McpClientManagerOptions, 'oauth'> = {},
): { manager: McpClientManager; events: unknown[] } {
  const events: unknown[] = [];
  const manager = new McpClientManager(
    { w: { type: 'http', url: world.mcpUrl } },
    {
      strictConfig: true,
      protocol: { mode: 'legacy' },
      onEvent: (e) => events.push(e),
      ...options,
      oauth: {
        w: {
          serverUrl: world.mcpUrl,
          allowedOrigins: [world.issuer],
          redirectUri: REDIRECT_URI,
          ...oauth,
        },
      },
    },
  );
  return { manager, events };
}

/** What the recorder saw: bodies of token requests and the authorization URLs visited. */
export interface WireRecord {
  readonly tokenBodies: URLSearchParams[];
}

/**
 * Records the form bodies of requests to `tokenPath` on `origin` made with the global fetch
 * (Muster's guarded fetch calls it), passing every request through unchanged.
 */
export function recordTokenRequests(origin: string): { record: WireRecord; stop(): void } {
  const original = globalThis.fetch;
  const record: WireRecord = { tokenBodies: [] };
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (url.origin === origin && init?.body instanceof URLSearchParams) {
      record.tokenBodies.push(new URLSearchParams(init.body));
    } else if (
      url.origin === origin &&
      typeof init?.body === 'string' &&
      url.pathname.includes('token')
    ) {
      record.tokenBodies.push(new URLSearchParams(init.body));
    }
    return original(input, init);
  }) as typeof fetch;
  return { record, stop: () => void (globalThis.fetch = original) };
}

/** Every string value found in `value`, recursively (errors included, with their causes). */
export function textOf(value: unknown, seen = new Set<unknown>()): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' && typeof value !== 'function') return String(value);
  if (seen.has(value)) return '';
  seen.add(value);
  const parts: string[] = [];
  if (value instanceof Error) parts.push(value.message, value.stack ?? '');
  for (const key of Reflect.ownKeys(value)) {
    const v = (value as Record<string | symbol, unknown>)[key];
    parts.push(String(key), textOf(v, seen));
  }
  if (value instanceof Error) parts.push(textOf((value as { cause?: unknown }).cause, seen));
  return parts.join('\n');
}
