import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';
import { runnableScript } from '../support/ts-script.js';

// mcp.reconnect seen from a plain script run by Node (top-level await, nothing else keeping the
// process alive), against the faulty stdio server: a call waiting for the background reconnect
// keeps the process alive; a background reconnect nobody waits for does not.

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const FAULTY = fixture('faulty/faulty-stdio.mjs');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs the fixture script to its end (killed after `timeoutMs`): exit code, stdout, stderr. */
function runScript(script: string, args: readonly string[], timeoutMs: number) {
  return new Promise<{ code: number | string | null; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      [runnableScript(fixture(script)), ...args],
      { cwd: ROOT, timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8' },
      (error, stdout, stderr) =>
        done({
          code: error ? (error.killed ? 'killed' : (error.code ?? null)) : 0,
          stdout,
          stderr,
        }),
    ),
  );
}

/** A fresh `--log` file for the faulty server (one line per start, call and exit). */
function serverLog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'muster-reconnect-'));
  dirs.push(dir);
  return join(dir, 'server.log');
}

describe('a plain script with background reconnect', () => {
  it("stays alive while a run's call waits for its stdio server to come back, and finishes the run", async () => {
    const log = serverLog();
    const run = await runScript('mcp/reconnect-wait-child.mts', [FAULTY, `--log=${log}`], 60_000);
    // before the fix: code 13 (unsettled top-level await) right after the crash
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n').filter(Boolean)).toEqual([
      'completed mcp__flaky__crash TOOL_OUTCOME_UNKNOWN',
      'completed mcp__flaky__count call 1', // answered by the new process
      'answer all done',
    ]);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const starts = lines.filter((l) => l.startsWith('start ')).map((l) => l.split(' ')[1]);
    expect(starts).toHaveLength(2);
    // the crash ran on the first process, `count` once on the second: sent once, never twice
    expect(lines.filter((l) => l.startsWith('call '))).toEqual([
      `call crash ${starts[0]}`,
      `call count ${starts[1]}`,
    ]);
  });

  it('exits by itself while a background reconnect nobody waits for is in its backoff', async () => {
    const log = serverLog();
    const t0 = performance.now();
    const run = await runScript('mcp/reconnect-idle-child.mts', [FAULTY, `--log=${log}`], 60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('crash TOOL_OUTCOME_UNKNOWN\nreconnecting now\n');
    // the first attempt would start 24 to 30 s after the crash: the backoff kept nothing alive
    expect(performance.now() - t0).toBeLessThan(20_000);
    const starts = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('start '));
    expect(starts).toHaveLength(1);
  });
});
