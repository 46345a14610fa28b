import { existsSync } from 'node:fs';
import type { PeerClient } from './peers/peer-clients.mjs';

export type { PeerClient, PeerEndpoint, PeerTarget } from './peers/peer-clients.mjs';

/** The line printed when the peer clients are not installed. */
export const PEERS_INSTALL_HINT =
  'peers: not installed, so no ratio to the AI SDK and OpenAI Agents MCP clients; install them with `npm --prefix bench/peers ci`';

/**
 * The peer MCP clients (bench/peers, its own package, never a dependency of muster-agent),
 * or `undefined` when bench/peers/node_modules is not installed.
 */
export async function loadPeers(): Promise<readonly PeerClient[] | undefined> {
  const marker = new URL('./peers/node_modules/@ai-sdk/mcp/package.json', import.meta.url);
  if (!existsSync(marker)) return undefined;
  const { PEERS } = await import('./peers/peer-clients.mjs');
  return PEERS;
}
