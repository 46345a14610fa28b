import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PeerClient } from './peers/peer-clients.mjs';
import type * as PeerClients from './peers/peer-clients.mjs';

export type { PeerClient, PeerEndpoint, PeerReady, PeerTarget } from './peers/peer-clients.mjs';

/** The line printed when the peer clients are not installed. */
export const PEERS_INSTALL_HINT =
  'peers: not installed, so no ratio to the AI SDK and OpenAI Agents MCP clients; install them with `npm --prefix bench/peers ci`';

/** The environment variable that points the benchmarks at another peers folder (tests). */
export const PEERS_DIR_ENV = 'BENCH_PEERS_DIR';

/**
 * The folder of the peer clients: `BENCH_PEERS_DIR` when set (resolved against the working
 * directory), else `bench/peers`. It holds `peer-clients.mjs` and its `node_modules`.
 */
export function peersDir(): string {
  const override = process.env[PEERS_DIR_ENV];
  if (override !== undefined && override !== '') return resolve(override);
  return fileURLToPath(new URL('./peers/', import.meta.url));
}

/** Whether the peer clients are installed in `dir` (its `node_modules` has `@ai-sdk/mcp`). */
export function peersInstalled(dir: string = peersDir()): boolean {
  return existsSync(join(dir, 'node_modules', '@ai-sdk', 'mcp', 'package.json'));
}

/**
 * The peer MCP clients (bench/peers, its own package, never a dependency of muster-agent),
 * or `undefined` when their `node_modules` is not installed.
 */
export async function loadPeers(
  dir: string = peersDir(),
): Promise<readonly PeerClient[] | undefined> {
  if (!peersInstalled(dir)) return undefined;
  const url = pathToFileURL(join(dir, 'peer-clients.mjs')).href;
  const { PEERS } = (await import(url)) as typeof PeerClients;
  return PEERS;
}
