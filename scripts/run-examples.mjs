#!/usr/bin/env node
// Runs the examples as a user would (`npx tsx <file>`), offline, each in a process of its own
// with a time bound, two at a time; fails naming every example that exited non-zero, threw
// (with the error's code when it has one) or overran its bound.
//
//   node scripts/run-examples.mjs                     (the examples the guide embeds: see below)
//   node scripts/run-examples.mjs <file|folder>...    (those files; a folder's *.ts files)
//   options: --timeout <seconds> (default 60, or MUSTER_EXAMPLE_TIMEOUT_S), --jobs <n> (default 2)
//
// Each example runs with its working folder and MUSTER_HOME in a fresh temporary folder,
// removed afterwards, and without the provider keys and URLs (so provider examples skip):
// nothing it does reaches the repository or the network unless the example itself reaches
// for it. A file whose first lines hold `// example-helper: not run on its own` is imported by
// examples and not run.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository's root. */
export const ROOT = resolve(import.meta.dirname, '..');

/** The line that marks a file under `examples/` as a helper, not an example of its own. */
export const HELPER_MARK = '// example-helper: not run on its own';

/** The folders whose `*.ts` files are the examples `npm run examples` runs. */
export const EXAMPLE_FOLDERS = [
  'examples',
  'examples/demo',
  'examples/migrating',
  'examples/providers',
];

/** What would take an example online: unset for every run. */
const ONLINE_ENV = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OLLAMA_BASE_URL'];

/** Where an example's uncaught error is reported (see report-error.mjs). */
const REPORTER = pathToFileURL(join(ROOT, 'scripts/examples/report-error.mjs')).href;
const TSX = import.meta.resolve('tsx');

/** Whether `file` is marked as a helper in its first ten lines. */
export function isHelper(file) {
  const head = readFileSync(file, 'utf8').split('\n', 10);
  return head.some((line) => line.trim() === HELPER_MARK);
}

/**
 * The examples to run for `targets` (files and folders, relative to `cwd`): a folder's `*.ts`
 * files (not its sub-folders), helpers left out; without targets, every example folder's.
 * Sorted, absolute.
 */
export function listExamples(targets = [], cwd = ROOT) {
  const paths =
    targets.length > 0
      ? targets.map((t) => resolve(cwd, t))
      : EXAMPLE_FOLDERS.map((f) => join(ROOT, f));
  const files = paths.flatMap((path) => {
    if (!existsSync(path)) throw new Error(`run-examples: no such file or folder: ${path}`);
    if (!statSync(path).isDirectory()) return [path];
    return readdirSync(path, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
      .map((e) => join(path, e.name));
  });
  return [...new Set(files)].filter((f) => !isHelper(f)).sort();
}

/**
 * Runs one example; resolves `{ file, ok, exitCode, signal, timedOut, error, stdout, stderr,
 * ms }`, where `error` is `{ name, code?, message }` of an uncaught error.
 */
export function runExample(file, { timeoutMs = 60_000 } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'muster-example-'));
  const home = join(work, 'muster-home');
  const report = join(work, 'uncaught-error.json');
  const env = { ...process.env, MUSTER_HOME: home, MUSTER_EXAMPLE_ERROR_FILE: report };
  for (const name of ONLINE_ENV) delete env[name];
  const started = Date.now();
  return new Promise((resolvePromise) => {
    // a process group of its own: a bound kills the example and the servers it started
    const child = spawn(process.execPath, ['--import', TSX, '--import', REPORTER, file], {
      cwd: work,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    let timedOut = false;
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      killGroup(); // servers an example left running
      let error;
      try {
        error = JSON.parse(readFileSync(report, 'utf8'));
      } catch {
        // no uncaught error
      }
      rmSync(work, { recursive: true, force: true });
      resolvePromise({
        file,
        ok: exitCode === 0 && !timedOut,
        exitCode,
        signal,
        timedOut,
        error,
        stdout,
        stderr,
        ms: Date.now() - started,
      });
    });
  });
}

/** Runs `files`, `jobs` at a time, in order of `files`; resolves every result. */
export async function runExamples(files, { timeoutMs, jobs = 2, onResult = () => {} } = {}) {
  const results = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const index = next++;
      results[index] = await runExample(files[index], { timeoutMs });
      onResult(results[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
  return results;
}

/** One line saying why an example failed. */
export function failureReason(result, timeoutMs) {
  if (result.timedOut) return `did not finish within its bound of ${timeoutMs / 1000} s, stopped`;
  const { error } = result;
  if (error) return `threw ${error.name}${error.code ? ` ${error.code}` : ''}: ${error.message}`;
  return `exited with ${result.exitCode ?? result.signal}`;
}

function parseArgs(argv) {
  const targets = [];
  let timeoutS = Number(process.env.MUSTER_EXAMPLE_TIMEOUT_S ?? 60);
  let jobs = 2;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--timeout') timeoutS = Number(argv[++i]);
    else if (arg === '--jobs') jobs = Number(argv[++i]);
    else targets.push(arg);
  }
  if (!(timeoutS > 0) || !(jobs >= 1))
    throw new Error('run-examples: --timeout and --jobs take positive numbers');
  return { targets, timeoutMs: timeoutS * 1000, jobs };
}

async function main() {
  const { targets, timeoutMs, jobs } = parseArgs(process.argv.slice(2));
  const files = listExamples(targets, process.cwd());
  const name = (f) => relative(process.cwd(), f) || f;
  const started = Date.now();
  const results = await runExamples(files, {
    timeoutMs,
    jobs,
    onResult: (r) => {
      const seconds = `${(r.ms / 1000).toFixed(1)} s`;
      if (r.ok) process.stdout.write(`ok   ${name(r.file)} (${seconds})\n`);
      else
        process.stdout.write(`FAIL ${name(r.file)} (${seconds}): ${failureReason(r, timeoutMs)}\n`);
    },
  });
  const failed = results.filter((r) => !r.ok);
  for (const r of failed) {
    process.stderr.write(`\n--- ${name(r.file)}: ${failureReason(r, timeoutMs)}\n`);
    process.stderr.write(`${r.stderr.trim().split('\n').slice(-30).join('\n')}\n`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `\nexamples: ${results.length - failed.length} passed, ${failed.length} failed (${seconds} s)\n`,
  );
  if (failed.length > 0) {
    process.stdout.write(`failed: ${failed.map((r) => name(r.file)).join(', ')}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 2;
  });
}
