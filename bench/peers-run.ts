/**
 * `npm run bench:peers`: Muster against the raw official MCP client and the peer MCP clients
 * (AI SDK, OpenAI Agents) only, the rows of "Ahead of every peer per call": echo over stdio
 * and over Streamable HTTP, ten stdio servers ready, a 1 MiB result, peak RSS per client and
 * import time, in interleaved rounds, with the bench on one CPU and every server on another
 * (`taskset`). Prints to stdout; exits 0 whatever the figures (a measurement).
 *
 *   npm --prefix bench/peers ci        (once: the peer clients)
 *   npm run bench:peers                (checks the peers, builds, measures dist/)
 *   BENCH_SCALE=0.3 ROUNDS=2 npx tsx bench/peers-run.ts   (a quick pass; needs a build)
 *   BENCH_PIN=0 ...                    (no CPU pinning)
 *
 * `--check` only checks that the peers are installed (in `BENCH_PEERS_DIR`, default
 * bench/peers): without them it prints the install line to stderr and exits 1, before
 * anything is built or loaded.
 */
import { PEERS_INSTALL_HINT, peersInstalled } from './peers.js';

if (!peersInstalled()) {
  process.stderr.write(`${PEERS_INSTALL_HINT}\n`);
  process.exitCode = 1;
} else if (!process.argv.includes('--check')) {
  // loaded only now: it loads the built package (bench/muster.ts), which may not exist yet
  const { runPeersBench } = await import('./peers-bench.js');
  await runPeersBench();
}
