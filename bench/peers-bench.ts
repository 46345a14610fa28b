import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter, setMaxListeners } from 'node:events';
import { settledChildren } from './child-processes.js';
import { pinCpus } from './cpu-pinning.js';
import { forcedGc } from './gc.js';
import { measureImportTime } from './import-time.js';
import { BENCH_SOURCE } from './muster.js';
import { loadPeers, peersDir, PEERS_INSTALL_HINT } from './peers.js';
import { formatPeersReport } from './peers-report.js';
import { measurePeerRows } from './peers-rows.js';
import type { RowName } from './peers-rows.js';
import { measurePeakRss } from './peers-rss.js';

function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

function roundText(s: Readonly<Record<RowName, number>>): string {
  const total = s.stdio + s.http + s.ready + s.big;
  return `${total.toFixed(1)} s (stdio ${s.stdio.toFixed(1)}, HTTP ${s.http.toFixed(1)}, ready ${s.ready.toFixed(1)}, 1 MiB ${s.big.toFixed(1)})`;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

/**
 * Runs `npm run bench:peers` (see bench/peers-run.ts): pins the CPUs, measures the peer rows
 * in `ROUNDS` interleaved rounds (default 3), then peak RSS per client (one process per kind
 * and round) and import time, and prints the tables and the targets. `BENCH_SCALE` scales the sample counts.
 */
export async function runPeersBench(): Promise<void> {
  const started = performance.now();
  const cpuCount = availableParallelism();
  const pinning = pinCpus();
  const gc = forcedGc();
  const scale = positive('BENCH_SCALE', 1);
  const rounds = Math.round(positive('ROUNDS', 3));
  const n = (base: number, min = 3) => Math.max(min, Math.round(base * scale));
  const peers = await loadPeers();
  if (!peers) throw new Error(PEERS_INSTALL_HINT);
  print(
    `muster bench:peers: node ${process.version}, ${cpuCount} cpu (${cpus()[0]?.model ?? '?'}), gc ${gc.source}, scale ${scale}, ${rounds} rounds, measuring ${BENCH_SOURCE === 'dist' ? 'the built package (dist/)' : 'the sources through tsx (BENCH_SOURCE=src; peak RSS and import time still use dist/)'}`,
  );
  print(pinning.text);
  print(`peers: ${peers.map((p) => p.label).join(', ')}`);

  // Muster's agents cache nothing in the user's home meanwhile; a turn of 8 calls puts more
  // than 10 abort listeners on a signal, where Node warns.
  const previousHome = process.env.MUSTER_HOME;
  const home = mkdtempSync(join(tmpdir(), 'muster-bench-home-'));
  process.env.MUSTER_HOME = home;
  const previousMaxListeners = EventEmitter.defaultMaxListeners;
  setMaxListeners(Math.max(previousMaxListeners, 64));
  const batch = 8;
  let rows;
  try {
    rows = await measurePeerRows({
      peers,
      wrap: pinning.wrap,
      spread: pinning.spread,
      rounds,
      stdio: { warmupSamples: 5, samples: n(50) },
      http: { warmupSamples: 3, samples: n(20) },
      big: { warmupSamples: 3, samples: n(12) },
      // ten process starts per client: the costliest row, twice per round (one sample per
      // round left the first-contact ratio to three samples, which moved it by 10 %)
      readyRepetitions: Math.max(1, Math.round(2 * scale)),
      batch,
      collect: gc.collect,
      onRound: (round, seconds) =>
        process.stderr.write(
          `bench:peers: round ${round + 1} of ${rounds}: ${roundText(seconds)}\n`,
        ),
    });
  } finally {
    setMaxListeners(previousMaxListeners);
    if (previousHome === undefined) delete process.env.MUSTER_HOME;
    else process.env.MUSTER_HOME = previousHome;
    rmSync(home, { recursive: true, force: true });
  }

  // BENCH_RSS_CALLS: the echo calls of the peak-RSS row (default 2,000 × BENCH_SCALE); at
  // 30,000 every client's young generation has reached its largest size (performance.md)
  const calls = Math.round(positive('BENCH_RSS_CALLS', n(2000, 100)));
  const bigCalls = n(20, 5);
  const rss = await measurePeakRss({
    calls,
    bigCalls,
    // one process per kind and round, the kinds alternating: one process's peak RSS varies by
    // 10 % from run to run on a busy machine
    repetitions: rounds,
    peers,
    peersDir: peersDir(),
    wrap: pinning.wrap,
  });
  const imports = measureImportTime(n(10, 5));
  if (!imports) throw new Error('bench:peers: no dist/ (run npm run build)');
  const leftover = await settledChildren();

  const report = formatPeersReport({
    rows,
    rss,
    rssWork: `${calls} echo calls, then ${bigCalls} calls of the 1 MiB tool`,
    imports,
  });
  print();
  for (const line of report.lines) print(line);
  print();
  const { targets } = report;
  print(`targets (${targets.filter((t) => t.met).length} of ${targets.length} met):`);
  for (const t of targets) print(`   ${t.met ? 'met    ' : 'NOT MET'}  ${t.text}`);
  print();
  print(
    `rounds: ${rows.roundSeconds.map(roundText).join('; ')}; ${batch} sequential calls per echo sample; ${leftover === undefined ? 'child processes not checked' : `${leftover.length} child process(es) left`}`,
  );
  print(`bench:peers finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
