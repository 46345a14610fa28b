import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';
import { runCommandsInProcess, runMuster, useBuiltCli } from '../support/cli.js';
import { cliProject } from '../support/cli-project.js';
import type { CliProject } from '../support/cli-project.js';

// `muster run` without a terminal (stdin closed, as in scripts and CI): it never waits for
// input, --allow/--deny/--default decide, and the exit code says when calls were refused.

const cli = useBuiltCli();
runCommandsInProcess();

let project: CliProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

interface RunDocument {
  sessionId: string;
  status: string;
  text: string;
  usage: { inputTokens: number; outputTokens: number };
  refusedCalls: { toolName: string; code: string }[];
  events: { type: string; toolName?: string; errorCode?: string }[];
}

describe('muster run without a terminal', () => {
  it('with --default ask refuses the call nobody can approve, finishes and exits 5', async () => {
    project = cliProject({ basic: 'basic-server.mjs' });
    const model = project.turns('turns.json', [
      { toolCalls: [{ name: 'mcp__basic__add', arguments: { a: 1, b: 2 } }] },
      { text: 'Could not add.' },
    ]);
    const started = Date.now();
    const run = await runMuster(cli.bin, ['run', 'add', '--model', model, '--default', 'ask'], {
      cwd: project.dir,
      env: project.env,
      timeoutMs: 30_000,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.code).toBe(5);
    expect(run.stdout).toBe('Could not add.\n');
    expect(run.stderr).toMatch(/x mcp__basic__add \[TOOL_APPROVAL_REQUIRED\]/);
    expect(run.stderr).toContain('--allow <pattern>');
  }, 60_000);

  it("connects a cloned project's servers only when --allow names them", async () => {
    project = cliProject({ basic: 'basic-server.mjs' }, 'project');
    const turns = [
      { toolCalls: [{ name: 'mcp__basic__add', arguments: { a: 1, b: 2 } }] },
      { text: 'done' },
    ];
    const model = project.turns('turns.json', turns);
    const args = ['--json', 'run', 'add', '--model', model, '--allow', 'mcp__basic__add'];
    const refused = await runMuster(cli.bin, args, { cwd: project.dir, env: project.env });
    // the refused connection counts: a script learns it from the exit code
    expect(refused.code, refused.stderr).toBe(5);
    const doc = JSON.parse(refused.stdout) as Omit<RunDocument, 'events'> & {
      events: { type: string; status?: string; errorCode?: string }[];
    };
    expect(doc.refusedCalls).toEqual([
      { toolName: 'mcp_connect:basic', server: 'basic', code: 'TOOL_APPROVAL_REQUIRED' },
    ]);
    // never connected: the tool does not exist for the model
    expect(
      doc.events.filter((e) => e.type === 'mcp.server.status' && e.status === 'connected'),
    ).toEqual([]);
    expect(doc.events.find((e) => e.type === 'tool.completed')).toMatchObject({
      errorCode: 'TOOL_NOT_FOUND',
    });
    // without --json the refused server is named on stderr with what to do
    const human = await runMuster(cli.bin, args.slice(1), { cwd: project.dir, env: project.env });
    expect(human.code).toBe(5);
    expect(human.stderr).toMatch(
      /! server basic disabled \[TOOL_APPROVAL_REQUIRED\].*--allow mcp_connect:basic/,
    );
    // --allow is repeatable and takes one value: the prompt may follow it
    const allowed = await runMuster(
      cli.bin,
      [
        '--json',
        'run',
        '--allow',
        'mcp__basic__add',
        '--allow',
        'mcp_connect:basic',
        'add',
        '--model',
        model,
      ],
      { cwd: project.dir, env: project.env },
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    const ok = JSON.parse(allowed.stdout) as RunDocument;
    expect(ok.refusedCalls).toEqual([]);
    expect(ok.events.find((e) => e.type === 'tool.completed')).not.toHaveProperty('errorCode');
  }, 60_000);

  it('item-05: a connection refused by choice (--deny, --default deny) is listed and exits 0', async () => {
    project = cliProject({ basic: 'basic-server.mjs' }, 'project');
    const model = project.turns('turns.json', [{ text: 'No tools needed.' }]);
    const opts = { cwd: project.dir, env: project.env };
    // --deny refuses the connection even when --default allow would let it through
    const denied = await runMuster(
      cli.bin,
      ['run', '--deny', 'mcp_connect:basic', '--default', 'allow', 'hi', '--model', model],
      opts,
    );
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toBe('No tools needed.\n');
    expect(denied.stderr).toMatch(/! server basic disabled \[TOOL_DENIED\]/);
    expect(denied.stderr).not.toMatch(/refused without a person to ask/);
    // so does --default deny, and --json still lists the refused connection
    const byDefault = await runMuster(
      cli.bin,
      ['--json', 'run', '--default', 'deny', 'hi', '--model', model],
      opts,
    );
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect((JSON.parse(byDefault.stdout) as RunDocument).refusedCalls).toEqual([
      { toolName: 'mcp_connect:basic', server: 'basic', code: 'TOOL_DENIED' },
    ]);
  }, 60_000);

  it('keeps MUSTER_HOME and the sessions file private (0700, 0600)', async () => {
    project = cliProject({});
    const home = join(project.dir, 'fresh-home');
    const model = project.turns('turns.json', [{ text: 'Hi.' }]);
    const run = await runMuster(cli.bin, ['run', 'hi', '--model', model], {
      cwd: project.dir,
      env: { MUSTER_HOME: home },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, 'sessions.sqlite')).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('runs allowed calls, refuses denied ones, and prints one JSON document with --json', async () => {
    project = cliProject({ basic: 'basic-server.mjs' });
    const model = project.turns('turns.json', [
      {
        toolCalls: [
          { name: 'mcp__basic__echo', arguments: { text: 'hello' } },
          { name: 'mcp__basic__add', arguments: { a: 1, b: 2 } },
        ],
      },
      { text: 'Echoed, not added.' },
    ]);
    const run = await runMuster(
      cli.bin,
      [
        '--json',
        'run',
        'go',
        '--model',
        model,
        '--allow',
        'mcp__basic__echo',
        '--deny',
        'mcp__basic__add',
      ],
      { cwd: project.dir, env: project.env },
    );
    expect(run.code).toBe(5);
    const doc = JSON.parse(run.stdout) as RunDocument;
    expect(doc).toMatchObject({ status: 'completed', text: 'Echoed, not added.' });
    expect(doc.sessionId).toMatch(/^session_/);
    expect(doc.usage.outputTokens).toBeGreaterThan(0);
    expect(doc.refusedCalls).toEqual([{ toolName: 'mcp__basic__add', code: 'TOOL_DENIED' }]);
    const completed = doc.events.filter((e) => e.type === 'tool.completed');
    expect(completed.map((e) => [e.toolName, e.errorCode ?? null])).toEqual([
      ['mcp__basic__echo', null],
      ['mcp__basic__add', 'TOOL_DENIED'],
    ]);
    expect(doc.events.some((e) => e.type === 'model.delta')).toBe(false);
  }, 60_000);

  it('streams the text, exits 0 when nothing was refused, and keeps the session in SQLite under MUSTER_HOME', async () => {
    project = cliProject({ basic: 'basic-server.mjs' });
    const model = project.turns('turns.json', [
      { toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'x' } }] },
      { text: 'The echo said x.' },
    ]);
    const run = await runMuster(cli.bin, ['run', 'echo', '--model', model, '--default', 'allow'], {
      cwd: project.dir,
      env: project.env,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The echo said x.\n');
    expect(run.stderr).toMatch(/> mcp__basic__echo \{"text":"x"\}/);
    expect(run.stderr).toMatch(/< mcp__basic__echo: default: x/);
    expect(existsSync(join(project.home, 'sessions.sqlite'))).toBe(true);
    const list = await runMuster(cli.bin, ['--json', 'sessions', 'list'], {
      cwd: project.dir,
      env: project.env,
    });
    const { sessions } = JSON.parse(list.stdout) as { sessions: { status: string }[] };
    expect(sessions.map((s) => s.status)).toEqual(['completed']);
  }, 60_000);

  it('refuses a missing model, an unknown provider and a missing API key with exit 2', async () => {
    const none = await runMuster(cli.bin, ['run', 'hi']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/error \[INVALID_CONFIGURATION\]: No model chosen.*MUSTER_MODEL/);
    const unknown = await runMuster(cli.bin, ['run', 'hi', '--model', 'acme:big']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown model provider 'acme'/);
    const keyless = await runMuster(cli.bin, ['run', 'hi'], {
      env: { MUSTER_MODEL: 'openai:gpt-5-mini' },
    });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toMatch(/set OPENAI_API_KEY/);
    const anthropic = await runMuster(cli.bin, ['run', 'hi', '--model', 'anthropic:claude-x']);
    expect(anthropic.stderr).toMatch(/set ANTHROPIC_API_KEY/);
  }, 60_000);

  /** The built package in a folder whose node_modules has every dependency but the driver. */
  function withoutSqlite(): { bin: string; modules: string; cleanup: () => void } {
    const dir = mkdtempSync(join(tmpdir(), 'muster-no-sqlite-'));
    cpSync(join(cli.dir, 'dist'), join(dir, 'dist'), { recursive: true });
    cpSync(join(cli.dir, 'package.json'), join(dir, 'package.json'));
    mkdirSync(join(dir, 'node_modules'));
    for (const name of readdirSync(join(ROOT, 'node_modules'))) {
      if (name === 'better-sqlite3' || name.startsWith('.')) continue;
      symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
    }
    return {
      bin: join(dir, 'dist', 'cli', 'main.js'),
      modules: join(dir, 'node_modules'),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  }

  it('without better-sqlite3 installed, says how to install it and keeps sessions in memory', async () => {
    const pkg = withoutSqlite();
    try {
      project = cliProject({});
      const model = project.turns('turns.json', [{ text: 'Hello.' }]);
      const run = await runMuster(pkg.bin, ['run', 'hi', '--model', model], {
        cwd: project.dir,
        env: project.env,
        inProcess: false, // the copied package's own modules are the subject
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('Hello.\n');
      expect(run.stderr).toContain('npm i better-sqlite3');
      expect(run.stderr).toContain('npm i -g better-sqlite3');
      expect(existsSync(join(project.home, 'sessions.sqlite'))).toBe(false);
      // a parked run in memory would be lost with this process: --park is refused
      const parked = await runMuster(pkg.bin, ['run', 'hi', '--model', model, '--park'], {
        cwd: project.dir,
        env: project.env,
        inProcess: false, // the copied package's own modules are the subject
      });
      expect(parked.code).toBe(2);
      expect(parked.stderr).toMatch(
        /error \[INVALID_CONFIGURATION\]: --park needs a session store/,
      );
    } finally {
      pkg.cleanup();
    }
  }, 60_000);

  it('with a better-sqlite3 built for another Node.js, says so and keeps sessions in memory', async () => {
    const pkg = withoutSqlite();
    try {
      // what the real driver throws when its native addon was compiled for another ABI
      fakeDriver(
        pkg.modules,
        `const err = new Error("The module 'better_sqlite3.node'\\nwas compiled against a different Node.js version using\\nNODE_MODULE_VERSION 108. This version of Node.js requires\\nNODE_MODULE_VERSION 115.");
    err.code = 'ERR_DLOPEN_FAILED';
    throw err;`,
      );
      project = cliProject({});
      const model = project.turns('turns.json', [{ text: 'Hello.' }]);
      const run = await runMuster(pkg.bin, ['run', 'hi', '--model', model], {
        cwd: project.dir,
        env: project.env,
        inProcess: false, // the copied package's own modules are the subject
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('Hello.\n');
      expect(run.stderr).toMatch(/better-sqlite3 could not be loaded \(The module/);
      expect(run.stderr).toContain('npm i -g better-sqlite3');
      const list = await runMuster(pkg.bin, ['--json', 'sessions', 'list'], {
        cwd: project.dir,
        env: project.env,
        inProcess: false, // the copied package's own modules are the subject
      });
      expect(list.code, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout)).toEqual({ sessions: [] });
    } finally {
      pkg.cleanup();
    }
  }, 60_000);

  /** A better-sqlite3 in `modules` whose Database constructor throws what `throwing` builds. */
  function fakeDriver(modules: string, throwing: string): void {
    const driver = join(modules, 'better-sqlite3');
    mkdirSync(driver);
    writeFileSync(
      join(driver, 'package.json'),
      JSON.stringify({ name: 'better-sqlite3', version: '0.0.0', main: 'index.js' }),
    );
    writeFileSync(
      join(driver, 'index.js'),
      `module.exports = class Database {\n  constructor() {\n    ${throwing}\n  }\n};\n`,
    );
  }

  /** `muster run hi` (a scripted "Hello.") over a package whose driver throws `throwing`. */
  async function runWithDriver(throwing: string): Promise<Awaited<ReturnType<typeof runMuster>>> {
    const pkg = withoutSqlite();
    try {
      fakeDriver(pkg.modules, throwing);
      project = cliProject({});
      const model = project.turns('turns.json', [{ text: 'Hello.' }]);
      return await runMuster(pkg.bin, ['run', 'hi', '--model', model], {
        cwd: project.dir,
        env: project.env,
        inProcess: false, // the copied package's own modules are the subject
      });
    } finally {
      pkg.cleanup();
    }
  }

  it('decides a driver failure from its code, not its text: an unrelated message with ERR_DLOPEN_FAILED falls back', async () => {
    const run = await runWithDriver(
      "const err = new Error('the loader said something new'); err.code = 'ERR_DLOPEN_FAILED'; throw err;",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Hello.\n');
    expect(run.stderr).toContain(
      'better-sqlite3 could not be loaded (the loader said something new)',
    );
    expect(run.stderr).toContain('sessions are kept in memory');
  }, 60_000);

  it('does not fall back for a store failure whose text mentions NODE_MODULE_VERSION but has no such fact', async () => {
    // what a corrupt sessions file could say: no error code, no bindings lookup
    const run = await runWithDriver(
      "throw new Error('file is not a database (NODE_MODULE_VERSION 115 seen in its header)');",
    );
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('file is not a database');
    expect(run.stderr).not.toContain('kept in memory');
  }, 60_000);

  it('loads a vendor SDK only for a run that uses it', async () => {
    project = cliProject({});
    const loaded = (args: string[], env: Record<string, string>) =>
      new Promise<{ code: number; urls: string[] }>((resolve) => {
        const log = join(project!.dir, `loads-${Math.random()}.log`);
        execFile(
          process.execPath,
          ['--import', join(ROOT, 'test/fixtures/package/record-loads.mjs'), cli.bin, ...args],
          {
            cwd: project!.dir,
            env: { PATH: process.env['PATH'] ?? '', ...project!.env, ...env, MUSTER_LOAD_LOG: log },
            timeout: 30_000,
          },
          (error) => {
            const urls = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
            resolve({ code: error ? Number(error.code) : 0, urls });
          },
        ).stdin?.end();
      });
    const vendor = /\/node_modules\/(openai|@anthropic-ai\/sdk)\//;
    const list = await loaded(['sessions', 'list'], {});
    expect(list.code).toBe(0);
    expect(list.urls.length).toBeGreaterThan(0);
    expect(list.urls.filter((u) => vendor.test(u))).toEqual([]);
    // nothing listens on port 9: the request fails, after the SDK was loaded
    const openai = await loaded(
      ['run', 'hi', '--model', 'openai:gpt-test', '--base-url', 'http://127.0.0.1:9/v1'],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(openai.code).toBe(8);
    expect(openai.urls.some((u) => /\/node_modules\/openai\//.test(u))).toBe(true);
  }, 60_000);

  it('shows progress of a long call as it happens', async () => {
    project = cliProject({ slow: 'slow-server.mjs' });
    const model = project.turns('turns.json', [
      { toolCalls: [{ name: 'mcp__slow__progress_sleep', arguments: { steps: 3, stepMs: 20 } }] },
      { text: 'Done.' },
    ]);
    const run = await runMuster(
      cli.bin,
      ['run', 'go', '--model', model, '--allow', 'mcp__slow__*'],
      { cwd: project.dir, env: project.env },
    );
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n');
    const progress = lines.filter((l) => l.includes('… mcp__slow__progress_sleep'));
    expect(progress).toEqual([
      '  … mcp__slow__progress_sleep 1/3 step 1',
      '  … mcp__slow__progress_sleep 2/3 step 2',
      '  … mcp__slow__progress_sleep 3/3 step 3',
    ]);
    const done = lines.findIndex((l) => l.startsWith('< mcp__slow__progress_sleep'));
    expect(done).toBeGreaterThan(lines.indexOf(progress[2]!));
  }, 60_000);
});
