import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { stdioConfig } from '../test/support/mcp-fixtures.js';
import type { StdioLaunch } from '../test/support/mcp-fixtures.js';
import type { PeerClient } from './peers.js';

const run = promisify(execFile);
const PROBE = fileURLToPath(new URL('./peers-rss-probe.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** One client kind's peak RSS, from its own process. */
export interface RssSample {
  readonly label: string;
  readonly kind: 'node' | 'raw' | 'muster' | 'peer';
  /** `process.resourceUsage().maxRSS` at the end of the workload, in MB (one per repetition). */
  readonly maxRssMb: readonly number[];
  /** The peak when the echo calls were done, before the 1 MiB calls, in MB (the same order). */
  readonly echoMaxRssMb: readonly number[];
}

/** What {@link measurePeakRss} takes. */
export interface PeakRssOptions {
  /** Sequential echo calls (basic-server.mjs). */
  readonly calls: number;
  /** Calls of the 1 MiB tool (big-result-server.mjs) after them. */
  readonly bigCalls: number;
  /** Processes per kind; the kinds alternate. */
  readonly repetitions: number;
  readonly peers: readonly PeerClient[];
  /** The folder of `peer-clients.mjs`. */
  readonly peersDir: string;
  /** How servers are launched (the same for every kind, for example under `taskset`). */
  readonly wrap: (launch: StdioLaunch) => StdioLaunch;
}

/**
 * Peak RSS of one process per client kind doing the same work (`bench/peers-rss-probe.mjs`,
 * run with `node`): a bare Node process (the floor), the raw official client (its default,
 * legacy), Muster's agent doing the calls as tool turns of `agent.run()` with a scripted model
 * (from the built `dist/`), and every peer that speaks stdio. Server processes are not counted.
 */
export async function measurePeakRss(options: PeakRssOptions): Promise<RssSample[]> {
  if (!existsSync(DIST)) throw new Error('bench:peers: no dist/ (run npm run build)');
  const base = {
    calls: options.calls,
    bigCalls: options.bigCalls,
    echo: options.wrap(stdioConfig('basic-server.mjs')),
    big: options.wrap(stdioConfig('big-result-server.mjs')),
  };
  const kinds: { label: string; kind: RssSample['kind']; extra: object }[] = [
    { label: 'node, no work (floor)', kind: 'node', extra: {} },
    { label: 'raw client, default (legacy)', kind: 'raw', extra: {} },
    ...options.peers.flatMap((p, i) =>
      p.targets.includes('stdio')
        ? [
            {
              label: `peer: ${p.short}`,
              kind: 'peer' as const,
              extra: { peers: join(options.peersDir, 'peer-clients.mjs'), peer: i },
            },
          ]
        : [],
    ),
    { label: 'muster agent, tool turns', kind: 'muster', extra: { dist: DIST } },
  ];
  const out = kinds.map((k) => ({
    label: k.label,
    kind: k.kind,
    maxRssMb: [] as number[],
    echoMaxRssMb: [] as number[],
  }));
  for (let r = 0; r < options.repetitions; r++) {
    for (const [i, k] of kinds.entries()) {
      const spec = JSON.stringify({ ...base, kind: k.kind, ...k.extra });
      const { stdout } = await run(process.execPath, [PROBE, spec], {
        maxBuffer: 1024 * 1024,
        encoding: 'utf8',
      });
      const result = JSON.parse(stdout) as { maxRssMb: number; echoMaxRssMb: number };
      out[i]!.maxRssMb.push(result.maxRssMb);
      out[i]!.echoMaxRssMb.push(result.echoMaxRssMb);
    }
  }
  return out;
}
