import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** True for a helper process of the TypeScript loader (tsx's esbuild service), not ours. */
function isLoaderHelper(pid: string): boolean {
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return /(^|\/)esbuild(\.exe)?$/.test(argv0);
  } catch {
    return false;
  }
}

/**
 * The ids of this process's live child processes, read from `/proc` (Linux), or `undefined`
 * where there is no `/proc`. Zombies (exited, not yet reaped) and the esbuild service that
 * tsx may start are not counted.
 */
export function childPids(): number[] | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "<pid> (<comm>) <state> <ppid> ...": comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === process.pid && fields[0] !== 'Z' && !isLoaderHelper(entry))
      pids.push(Number(entry));
  }
  return pids;
}

/**
 * Waits up to `timeoutMs` for every child process to be gone, and returns the ones still
 * alive (empty when none are; `undefined` where children cannot be listed).
 */
export async function settledChildren(timeoutMs = 3_000): Promise<number[] | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const pids = childPids();
    if (pids === undefined || pids.length === 0 || performance.now() >= deadline) return pids;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
