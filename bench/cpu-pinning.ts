import { spawnSync } from 'node:child_process';
import type { StdioLaunch } from '../test/support/mcp-fixtures.js';

/**
 * Where the benchmark runs and where its servers run. With pinning on, the benchmark process
 * (all its threads) is on one CPU and every server it launches on another, so a server never
 * competes with the clients for a core.
 */
export interface CpuPinning {
  readonly on: boolean;
  /** One line saying what was done, for the report. */
  readonly text: string;
  /**
   * The same launch under `taskset -c <server cpu>` when pinning is on, else unchanged. Every
   * client in a comparison gets the wrapped launch, so they are treated alike.
   */
  wrap(launch: StdioLaunch): StdioLaunch;
  /**
   * The same launch free to run on every CPU this process was allowed before pinning (a child
   * inherits its parent's CPU): for rows where many servers start at once, which would queue
   * on one server CPU.
   */
  spread(launch: StdioLaunch): StdioLaunch;
}

/** Parses a CPU list as `taskset` prints it (`0,1`, `0-3,6`). */
export function parseCpuList(text: string): number[] {
  const cpus: number[] = [];
  for (const part of text.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    for (let c = lo; c <= hi; c++) cpus.push(c);
  }
  return cpus;
}

function off(text: string): CpuPinning {
  return { on: false, text, wrap: (launch) => launch, spread: (launch) => launch };
}

/**
 * Pins this process to the first CPU it may run on and wraps server launches to the second,
 * with `taskset` (`taskset -a -cp` on this process: every thread). Off when `BENCH_PIN=0`,
 * when there is no `taskset`, or when this process may run on fewer than two CPUs.
 */
export function pinCpus(env: NodeJS.ProcessEnv = process.env): CpuPinning {
  if (env.BENCH_PIN === '0') return off('CPU pinning off (BENCH_PIN=0)');
  const query = spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
  if (query.error !== undefined || query.status !== 0) return off('CPU pinning off (no taskset)');
  const cpus = parseCpuList(query.stdout.slice(query.stdout.lastIndexOf(':') + 1));
  if (cpus.length < 2) return off(`CPU pinning off (${cpus.length} CPU allowed)`);
  const [benchCpu, serverCpu] = [cpus[0]!, cpus[1]!];
  const taskset = (list: string) => (launch: StdioLaunch) => ({
    ...launch,
    command: 'taskset',
    args: ['-c', list, launch.command, ...launch.args],
  });
  const pin = spawnSync('taskset', ['-a', '-cp', String(benchCpu), String(process.pid)], {
    encoding: 'utf8',
  });
  if (pin.error !== undefined || pin.status !== 0)
    return off(`CPU pinning off (taskset failed: ${pin.stderr.trim() || pin.status})`);
  return {
    on: true,
    text: `CPU pinning on: bench process on CPU ${benchCpu}, every server under taskset -c ${serverCpu}, except the ten servers started at once (free on CPUs ${cpus.join(',')}) (BENCH_PIN=0 turns it off)`,
    wrap: taskset(String(serverCpu)),
    spread: taskset(cpus.join(',')),
  };
}
