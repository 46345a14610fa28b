import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';
import { buildCli, runMuster } from '../support/cli.js';
import { cliProject } from '../support/cli-project.js';
import type { CliProject } from '../support/cli-project.js';

// `muster run` without a terminal (stdin closed, as in scripts and CI): it never waits for
// input, --allow/--deny/--default decide, and the exit code says when calls were refused.

let cli: ReturnType<typeof buildCli>;
beforeAll(() => {
  cli = buildCli();
}, 120_000);
afterAll(() => cli.cleanup());

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

  it('without better-sqlite3 installed, says how to install it and keeps sessions in memory', async () => {
    // the built package in a folder whose node_modules has every dependency but the driver
    const dir = mkdtempSync(join(tmpdir(), 'muster-no-sqlite-'));
    try {
      cpSync(join(cli.dir, 'dist'), join(dir, 'dist'), { recursive: true });
      cpSync(join(cli.dir, 'package.json'), join(dir, 'package.json'));
      mkdirSync(join(dir, 'node_modules'));
      for (const name of readdirSync(join(ROOT, 'node_modules'))) {
        if (name === 'better-sqlite3' || name.startsWith('.')) continue;
        symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
      }
      project = cliProject({});
      const model = project.turns('turns.json', [{ text: 'Hello.' }]);
      const bin = join(dir, 'dist', 'cli', 'main.js');
      const run = await runMuster(bin, ['run', 'hi', '--model', model], {
        cwd: project.dir,
        env: project.env,
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('Hello.\n');
      expect(run.stderr).toContain('npm i better-sqlite3');
      expect(existsSync(join(project.home, 'sessions.sqlite'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
