import { Client } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../../src/mcp/contracts/config-types.js';
import type { TransportContext } from '../../../src/mcp/transports/index.js';

/** A remote declaration (`http` or `sse`). */
export type RemoteConfig = Extract<McpServerConfig, { type: 'http' | 'sse' }>;

/** The `maxResponseBytes` of the bounded-response tests. */
export const LIMIT = 4096;
/** What counts as a prompt failure. */
export const PROMPT_MS = 3000;
/** The client timeout of calls expected to fail promptly: a hang shows as a timeout error. */
export const CALL_TIMEOUT_MS = 20_000;

/** A transport context for `server`. */
export function ctx(server: string, maxResponseBytes = LIMIT): TransportContext {
  return { server, maxResponseBytes, stderrBytes: 4096 };
}

/** An official client in the given version-negotiation mode (the client's default is legacy). */
export function newClient(mode: 'legacy' | 'auto' = 'legacy'): Client {
  return new Client({ name: 'muster-test', version: '0.0.0' }, { versionNegotiation: { mode } });
}

/** Runs `fn` and returns what it threw (fails the test when it does not throw). */
export async function rejection(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Runs `fn` and returns what it threw (fails the test when it does not throw). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
