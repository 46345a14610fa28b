/**
 * `npm run examples` (scripts/run-examples.mjs): run as a process over planted examples (a
 * broken one, a hanging one, one that checks where it runs) and over real examples, after which
 * the repository is as it was; the listing of every example is checked without running them.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listExamples } from '../../scripts/run-examples.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const RUNNER = join(ROOT, 'scripts/run-examples.mjs');
const SRC = JSON.stringify(join(ROOT, 'src/index.js'));

interface RunnerRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the runner from the repository's root with `args`. */
function runner(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunnerRun> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [RUNNER, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 170_000 },
      (error, stdout, stderr) =>
        done({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          stdout,
          stderr,
        }),
    );
  });
}

/**
 * Whether process `pid` still runs: a killed process whose parent has not reaped it yet (a
 * zombie, under a container's init that reaps nothing) does not.
 */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

let planted: string;
beforeAll(() => {
  planted = mkdtempSync(join(tmpdir(), 'muster-planted-examples-'));
  writeFileSync(join(planted, 'package.json'), '{ "type": "module" }\n');
});
afterAll(() => rmSync(planted, { recursive: true, force: true }));

/** Writes `examples/<name>` of the planted folder; returns its path. */
function plant(folder: string, name: string, code: string): string {
  mkdirSync(join(planted, folder), { recursive: true });
  const file = join(planted, folder, name);
  writeFileSync(file, code);
  return file;
}

describe('npm run examples', () => {
  it('fails naming an example that passes a wrong option name, with the error code', async () => {
    plant(
      'broken',
      'wrong-option.ts',
      [
        `import { createAgent, scriptedModel } from ${SRC};`,
        "const model = scriptedModel([{ text: 'hi' }]);",
        '// `polcy`: a misspelt option, refused at construction',
        'const agent = createAgent({ model, polcy: { allow: [] } } as never);',
        "console.log((await agent.send('hello')).text);",
        '',
      ].join('\n'),
    );
    plant('broken', 'fine.ts', "console.log('fine');\n");
    const { code, stdout } = await runner([join(planted, 'broken')]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^ok {3}.*broken\/fine\.ts /m);
    expect(stdout).toMatch(
      /^FAIL .*broken\/wrong-option\.ts \(.*\): threw MusterError INVALID_CONFIGURATION: .*polcy/m,
    );
    expect(stdout).toContain('examples: 1 passed, 1 failed');
    expect(stdout).toMatch(/^failed: .*broken\/wrong-option\.ts$/m);
  });

  it('fails naming an example that exits non-zero without throwing', async () => {
    const file = plant('exits', 'exit-code.ts', 'process.exitCode = 3;\n');
    const { code, stdout } = await runner([file]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL .*exits\/exit-code\.ts \(.*\): exited with 3$/m);
  });

  it('stops an example that hangs at its bound, with the servers it started, and fails', async () => {
    const pidFile = join(planted, 'grandchild.pid');
    plant(
      'hangs',
      'hangs.ts',
      [
        "import { spawn } from 'node:child_process';",
        "import { writeFileSync } from 'node:fs';",
        "const server = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
        `writeFileSync(${JSON.stringify(pidFile)}, String(server.pid));`,
        "console.log('waiting forever');",
        'setInterval(() => {}, 1000);',
        '',
      ].join('\n'),
    );
    const started = Date.now();
    const { code, stdout } = await runner([join(planted, 'hangs')], {
      MUSTER_EXAMPLE_TIMEOUT_S: '3',
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^FAIL .*hangs\/hangs\.ts \(.*\): did not finish within its bound of 3 s, stopped$/m,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    // the server the example started went with it
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(running(pid)).toBe(false);
  });

  it('runs each example offline in a temporary folder of its own, MUSTER_HOME there too', async () => {
    plant(
      'where',
      'where.ts',
      [
        "import { realpathSync, writeFileSync } from 'node:fs';",
        "import { tmpdir } from 'node:os';",
        'const tmp = realpathSync(tmpdir());',
        'const cwd = realpathSync(process.cwd());',
        "const home = process.env['MUSTER_HOME'] ?? '';",
        'if (!cwd.startsWith(tmp)) throw new Error(`cwd ${cwd}`);',
        'if (!home.startsWith(process.cwd())) throw new Error(`MUSTER_HOME ${home}`);',
        "if (process.env['OPENAI_API_KEY']) throw new Error('a provider key is set');",
        "writeFileSync('left-behind.txt', 'x');",
        '',
      ].join('\n'),
    );
    const { code, stdout } = await runner([join(planted, 'where')], {
      OPENAI_API_KEY: 'sk-planted',
    });
    expect(stdout).toMatch(/^ok {3}.*where\/where\.ts /m);
    expect(code).toBe(0);
  });

  it('lists every example under examples/ with the helpers left out', () => {
    const listed = listExamples().map((f) => relative(ROOT, f));
    expect(listed).toEqual(
      expect.arrayContaining([
        'examples/offline-agent.ts',
        'examples/demo/demo.ts',
        'examples/workers.ts',
        'examples/providers/openai.ts',
      ]),
    );
    // helpers (marked `// example-helper: not run on its own`) are imported, not run
    expect(listed).not.toContain('examples/demo/print-events.ts');
    expect(listed).not.toContain('examples/providers/run-example.ts');
    expect(listed).not.toContain('examples/migrating/query-host.ts');
  });

  // `.ci/run` runs `npm run examples` over all of them as a step of its own: here the process
  // runs three targets (a file and two folders that hold helpers) and must leave no trace.
  it('runs real examples under examples/, helpers left out, and leaves the repository as it was', async () => {
    const status = () =>
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
        cwd: ROOT,
        encoding: 'utf8',
      });
    const before = status();
    const { code, stdout, stderr } = await runner([
      'examples/offline-agent.ts',
      'examples/demo',
      'examples/providers',
    ]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const ran = [...stdout.matchAll(/^ok {3}(\S+)/gm)].map((m) => m[1]);
    expect(ran).toEqual(
      expect.arrayContaining([
        'examples/offline-agent.ts',
        'examples/demo/demo.ts',
        'examples/providers/openai.ts',
      ]),
    );
    expect(ran).not.toContain('examples/demo/print-events.ts');
    expect(ran).not.toContain('examples/providers/run-example.ts');
    expect(status()).toBe(before);
  });
});
