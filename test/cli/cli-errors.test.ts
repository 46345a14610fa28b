/**
 * item-03: what the `muster` command says when something fails. A vendor SDK that is not
 * installed gives its `npm i` line; a stdio server that crashes at start shows its redacted
 * stderr; and every failing command of docs/cli.md speaks of flags and commands, never of the
 * library's options. All through the built bin, as a user runs it.
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';
import { runMuster, useBuiltCli } from '../support/cli.js';
import type { CliRun } from '../support/cli.js';
import { stdioConfig } from '../support/mcp-fixtures.js';

const cli = useBuiltCli();

/** Library terms a CLI user never sets: none may reach stderr. */
const LIBRARY_TERMS = [
  'run({',
  'policy.approve',
  'diagnostics(',
  '"auth" or "headers"',
  'policy.',
  'agent.sessions',
  'outputRepairs',
  'waits.onExpiry',
  'createAgent(',
  'output.schema',
];

/** Whether `text` names a flag (`--deny`) or a command (`muster mcp add`). */
const namesFlagOrCommand = (text: string) =>
  /(^|[\s'"`(])--[a-z]/.test(text) || /\bmuster [a-z]/.test(text);

const CANARY = 'stderr-canary-7c41d09e2b';

const node = process.execPath;
const basic = stdioConfig('basic-server.mjs');
const dies = stdioConfig('scripted-stdio-server.mjs', [
  '--stderr-env=UPSTREAM_TOKEN',
  '--exit-at-start=1',
]);

interface Dirs {
  readonly workdir: string;
  readonly home: string;
}

function dirs(project: unknown, user: unknown = { mcpServers: {} }): Dirs {
  const workdir = mkdtempSync(join(tmpdir(), 'muster-err-wd-'));
  const home = mkdtempSync(join(tmpdir(), 'muster-err-home-'));
  mkdirSync(join(workdir, '.muster'));
  const write = (path: string, value: unknown) =>
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  write(join(workdir, '.muster', 'mcp.json'), project);
  write(join(home, 'mcp.json'), user);
  write(join(workdir, 'turns.json'), [{ text: 'hi' }]);
  write(join(workdir, 'no-turns.json'), []);
  write(join(workdir, 'echo-turns.json'), [
    { toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'x' } }] },
    { text: 'done' },
  ]);
  write(join(workdir, 'prose-turns.json'), [{ text: 'not json' }, { text: 'still not' }]);
  write(join(workdir, 'not-json.json'), 'x');
  write(join(workdir, 'array.json'), [1]);
  write(join(workdir, 'bad-schema.json'), { type: 'wat' });
  write(join(workdir, 'city.json'), {
    type: 'object',
    properties: { name: { type: 'string' } },
    required: ['name'],
  });
  return { workdir, home };
}

function muster(d: Dirs, args: readonly string[], env: Record<string, string> = {}) {
  return runMuster(cli.bin, args, {
    cwd: d.workdir,
    env: { MUSTER_HOME: d.home, ...env },
    inProcess: true,
  });
}

let ok: Dirs;
let broken: Dirs;
beforeAll(() => {
  ok = dirs({
    mcpServers: {
      basic: { command: node, args: basic.args },
      dies: { command: node, args: dies.args, env: { UPSTREAM_TOKEN: CANARY } },
    },
  });
  broken = dirs({ mcpServers: { y: { command: 3 } } });
});

/** A failing command of docs/cli.md: where it is documented, its arguments, its exit code. */
interface Failing {
  readonly doc: string;
  readonly args: readonly string[];
  readonly code: number;
  readonly broken?: boolean;
  readonly env?: Record<string, string>;
}

const RUN = ['run', 'hi', '--model'];
const FAILING: readonly Failing[] = [
  // muster mcp add
  { doc: 'add: a bad name', args: ['mcp', 'add', 'bad name', '--', 'node', 'x'], code: 2 },
  {
    doc: 'add: an unknown --scope',
    args: ['mcp', 'add', 'x', '--scope', 'team', '--', 'node'],
    code: 2,
  },
  {
    doc: 'add: an unknown --transport',
    args: ['mcp', 'add', 'x', '--transport', 'ws', 'https://example.com/mcp'],
    code: 2,
  },
  { doc: 'add: the name exists', args: ['mcp', 'add', 'basic', '--', 'node', 'y'], code: 2 },
  {
    doc: 'add: credentials in the URL',
    args: ['mcp', 'add', 'x', '--transport', 'http', 'https://u:p@example.com/mcp'],
    code: 2,
  },
  {
    doc: 'add: plain http off loopback',
    args: ['mcp', 'add', 'x', '--transport', 'http', 'http://example.com/mcp'],
    code: 2,
  },
  {
    doc: 'add: a fragment',
    args: ['mcp', 'add', 'x', '--transport', 'http', 'https://example.com/mcp#top'],
    code: 2,
  },
  {
    doc: 'add: a reserved header',
    args: [
      'mcp',
      'add',
      'x',
      '--transport',
      'http',
      'https://example.com/mcp',
      '--header',
      'Host: a',
    ],
    code: 2,
  },
  {
    doc: 'add: a file that does not load',
    args: ['mcp', 'add', 'z', '--', 'node'],
    code: 2,
    broken: true,
  },
  // remove, get, list
  { doc: 'remove: not declared', args: ['mcp', 'remove', 'nope'], code: 2 },
  { doc: 'get: not declared', args: ['mcp', 'get', 'nope'], code: 2 },
  { doc: 'get: an invalid file', args: ['mcp', 'get', 'y'], code: 2, broken: true },
  { doc: 'list: an invalid file', args: ['mcp', 'list'], code: 2, broken: true },
  // tools, call
  { doc: 'tools: not declared', args: ['mcp', 'tools', 'nope'], code: 2 },
  { doc: 'tools: the server failed', args: ['mcp', 'tools', 'dies'], code: 3 },
  { doc: 'call: bad --args', args: ['mcp', 'call', 'basic', 'echo', '--args', '{bad'], code: 2 },
  { doc: 'call: bad --arg', args: ['mcp', 'call', 'basic', 'echo', '--arg', 'noeq'], code: 2 },
  {
    doc: 'call: bad --default',
    args: ['mcp', 'call', 'basic', 'echo', '--default', 'maybe'],
    code: 2,
  },
  {
    doc: 'call: a bad pattern',
    args: ['mcp', 'call', 'basic', 'echo', '--deny', 'a b'],
    code: 2,
  },
  { doc: 'call: not declared', args: ['mcp', 'call', 'nope', 'echo'], code: 2 },
  { doc: 'call: the server failed', args: ['mcp', 'call', 'dies', 'echo'], code: 3 },
  {
    doc: 'call: refused by --deny',
    args: ['mcp', 'call', 'basic', 'echo', '--arg', 'text=hi', '--deny', 'mcp__basic__*'],
    code: 5,
  },
  {
    doc: 'call: --default ask with no prompt',
    args: ['mcp', 'call', 'basic', 'echo', '--arg', 'text=hi', '--default', 'ask'],
    code: 5,
  },
  {
    doc: 'call: refused by --default deny',
    args: ['mcp', 'call', 'basic', 'echo', '--arg', 'text=hi', '--default', 'deny'],
    code: 5,
  },
  {
    doc: 'call: invalid arguments',
    args: ['mcp', 'call', 'basic', 'echo', '--arg', 'text=3'],
    code: 6,
  },
  { doc: 'call: an unknown tool', args: ['mcp', 'call', 'basic', 'nope'], code: 6 },
  // auth, logout
  { doc: 'auth: no such server', args: ['mcp', 'auth', 'nope'], code: 2 },
  { doc: 'auth: not an http server', args: ['mcp', 'auth', 'basic'], code: 2 },
  { doc: 'auth: a bad --timeout', args: ['mcp', 'auth', 'basic', '--timeout', '0'], code: 2 },
  { doc: 'auth: a bad --store', args: ['mcp', 'auth', 'basic', '--store', 'vault'], code: 2 },
  { doc: 'logout: no such server', args: ['mcp', 'logout', 'nope'], code: 2 },
  // run
  { doc: 'run: no model', args: ['run', 'hi'], code: 2 },
  { doc: 'run: an unknown provider', args: [...RUN, 'foo:bar'], code: 2 },
  { doc: 'run: a missing API key', args: [...RUN, 'openai:gpt-5-mini'], code: 2 },
  { doc: 'run: a missing scripted file', args: [...RUN, 'scripted:nope.json'], code: 2 },
  { doc: 'run: an invalid mcp.json', args: [...RUN, 'scripted:turns.json'], code: 2, broken: true },
  ...['nope.json', 'not-json.json', 'array.json', 'bad-schema.json'].map((file) => ({
    doc: `run: --output-schema ${file}`,
    args: [...RUN, 'scripted:turns.json', '--output-schema', file],
    code: 2,
  })),
  {
    doc: 'run: --park without --default ask',
    args: [...RUN, 'scripted:turns.json', '--park', '--default', 'allow'],
    code: 2,
  },
  {
    doc: 'run: a bad --allow pattern',
    args: [...RUN, 'scripted:turns.json', '--allow', 'a b'],
    code: 2,
  },
  {
    doc: 'run: calls refused without a terminal',
    args: [...RUN, 'scripted:echo-turns.json', '--allow', 'mcp_connect:*'],
    code: 5,
  },
  {
    doc: 'run: a call refused by --deny',
    args: [
      ...RUN,
      'scripted:echo-turns.json',
      '--allow',
      'mcp_connect:*',
      '--deny',
      'mcp__basic__echo',
    ],
    code: 5,
  },
  {
    // refused by choice: listed and told, exit 0 (docs/cli.md)
    doc: 'run: a project server refused by --default deny',
    args: [...RUN, 'scripted:turns.json', '--default', 'deny'],
    code: 0,
  },
  { doc: 'run: the model failed', args: [...RUN, 'scripted:no-turns.json'], code: 8 },
  {
    doc: 'run: the typed answer stayed invalid',
    args: [...RUN, 'scripted:prose-turns.json', '--output-schema', 'city.json'],
    code: 10,
  },
  // sessions, decide, studio
  { doc: 'sessions waits: a bad --kind', args: ['sessions', 'waits', '--kind', 'nope'], code: 2 },
  { doc: 'sessions show: an unknown id', args: ['sessions', 'show', 'nope'], code: 7 },
  {
    doc: 'sessions resume: an unknown id',
    args: ['sessions', 'resume', 'nope', '--model', 'scripted:turns.json'],
    code: 7,
  },
  { doc: 'decide: no decision', args: ['decide', 's', 'w'], code: 2 },
  { doc: 'decide: two decisions', args: ['decide', 's', 'w', '--allow', '--deny'], code: 2 },
  { doc: 'decide: an empty --redirect', args: ['decide', 's', 'w', '--redirect', ''], code: 2 },
  { doc: 'decide: --answer no object', args: ['decide', 's', 'w', '--answer', '[1]'], code: 2 },
  {
    doc: 'decide: a bad --fingerprint',
    args: ['decide', 's', 'w', '--allow', '--fingerprint', 'xyz'],
    code: 2,
  },
  { doc: 'decide: no such wait', args: ['decide', 's', 'w', '--allow'], code: 7 },
  { doc: 'studio: another --host', args: ['studio', '--host', '0.0.0.0'], code: 2 },
];

/** Checks one failure's stderr: no library term, a flag or command named. */
function expectCliTerms(run: CliRun, doc: string): void {
  const label = `${doc}: ${run.stderr}`;
  for (const term of LIBRARY_TERMS) expect(run.stderr, label).not.toContain(term);
  const errors = run.stderr.split('\n').filter((l) => l.startsWith('error'));
  expect(errors.length, label).toBeGreaterThan(0);
  expect(namesFlagOrCommand(run.stderr), label).toBe(true);
}

describe('item-03: CLI errors name flags and commands, not library options', () => {
  it.concurrent.each(FAILING)('$doc', async (c) => {
    const run = await muster(c.broken ? broken : ok, c.args, c.env);
    expect(run.code, run.stderr).toBe(c.code);
    if (c.code === 5 || c.code === 0) {
      // a refusal without a terminal is no error line: the decision lines and the notice
      for (const term of LIBRARY_TERMS) expect(run.stderr, run.stderr).not.toContain(term);
      expect(run.stderr).toMatch(/--(allow|deny|default)/);
      return;
    }
    expectCliTerms(run, c.doc);
  });

  it('a parked run: the other kind of decision, a stale fingerprint, a wait decided twice', async () => {
    const parked = await muster(ok, [
      '--json',
      ...RUN,
      'scripted:echo-turns.json',
      '--allow',
      'mcp_connect:*',
      '--park',
    ]);
    expect(parked.code, parked.stderr).toBe(0);
    const doc = JSON.parse(parked.stdout) as { sessionId: string; waits: { id: string }[] };
    const [session, wait] = [doc.sessionId, doc.waits[0]!.id];
    const other = await muster(ok, ['decide', session, wait, '--answer', '{}']);
    expect(other.code).toBe(2);
    expectCliTerms(other, 'decide: --answer for an approval');
    const stale = await muster(ok, [
      'decide',
      session,
      wait,
      '--allow',
      '--fingerprint',
      '0'.repeat(64),
    ]);
    expect(stale.code).toBe(7);
    expect(stale.stderr).toContain('WAIT_STALE');
    expectCliTerms(stale, 'decide: a stale --fingerprint');
    expect((await muster(ok, ['decide', session, wait, '--allow'])).code).toBe(0);
    const twice = await muster(ok, ['decide', session, wait, '--allow']);
    expect(twice.code).toBe(7);
    expect(twice.stderr).toContain(`muster sessions resume ${session}`);
    expectCliTerms(twice, 'decide: already decided');

    const done = await muster(ok, ['--json', ...RUN, 'scripted:turns.json']);
    const id = (JSON.parse(done.stdout) as { sessionId: string }).sessionId;
    const resume = await muster(ok, ['sessions', 'resume', id, '--model', 'scripted:turns.json']);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain(`muster run "<prompt>" --session ${id}`);
    expectCliTerms(resume, 'sessions resume: a completed session');
  });
});

describe('item-03: a stdio server that crashes at start shows its redacted stderr', () => {
  const expectTail = (text: string) => {
    expect(text).toContain("stderr of 'dies' (redacted)");
    expect(text).toContain('scripted: fatal at start');
    expect(text).toContain('env UPSTREAM_TOKEN=[redacted]');
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain('diagnostics(');
  };

  it('mcp tools and mcp call print it under the error (exit 3); --json carries it', async () => {
    for (const args of [
      ['mcp', 'tools', 'dies'],
      ['mcp', 'call', 'dies', 'echo'],
    ]) {
      const run = await muster(ok, args);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(
        /error \[MCP_CONNECTION_FAILED\]: Server 'dies' exited with code 1/,
      );
      expect(run.stderr).toContain('muster mcp get dies');
      expectTail(run.stderr);
    }
    const json = await muster(ok, ['--json', 'mcp', 'tools', 'dies']);
    const error = (JSON.parse(json.stdout) as { error: Record<string, string> }).error;
    expect(error).toMatchObject({ code: 'MCP_CONNECTION_FAILED', server: 'dies' });
    expect(error['stderrTail']).toContain('env UPSTREAM_TOKEN=[redacted]');
    expect(json.stdout + json.stderr).not.toContain(CANARY);
  });

  it('mcp list shows it under the failed server, and only there', async () => {
    const run = await muster(ok, ['mcp', 'list']);
    expect(run.code).toBe(0);
    expectTail(run.stdout);
    expect(run.stdout).not.toContain("stderr of 'basic'");
    const json = await muster(ok, ['--json', 'mcp', 'list']);
    const servers = (JSON.parse(json.stdout) as { servers: Record<string, unknown>[] }).servers;
    const byName = new Map(servers.map((s) => [s['name'], s]));
    expect(byName.get('dies')).toMatchObject({ status: 'failed' });
    expect(byName.get('dies')?.['stderrTail']).toContain('scripted: fatal at start');
    expect(byName.get('basic')?.['stderrTail']).toBeUndefined();
    expect(json.stdout).not.toContain(CANARY);
  });

  it('muster run prints it under the server status line', async () => {
    const run = await muster(ok, [...RUN, 'scripted:turns.json', '--allow', 'mcp_connect:*']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('! server dies failed [MCP_CONNECTION_FAILED]');
    expectTail(run.stderr);
  });
});

describe('item-03: a missing vendor package says which npm i installs it', () => {
  /** The built package copied to a folder whose node_modules lacks the vendor SDKs. */
  let bin: string;
  let dir: string | undefined;
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'muster-no-vendor-'));
    cpSync(join(cli.dir, 'dist'), join(dir, 'dist'), { recursive: true });
    cpSync(join(cli.dir, 'package.json'), join(dir, 'package.json'));
    mkdirSync(join(dir, 'node_modules'));
    const missing = new Set(['openai', '@anthropic-ai', '.bin', '.cache']);
    for (const entry of readdirSync(join(ROOT, 'node_modules')))
      if (!missing.has(entry) && !entry.startsWith('.'))
        symlinkSync(join(ROOT, 'node_modules', entry), join(dir, 'node_modules', entry), 'dir');
    bin = join(dir, 'dist', 'cli', 'main.js');
  });

  it.each([
    ['openai:gpt-x', 'openai', { OPENAI_API_KEY: 'sk-test' }],
    ['ollama:llama3.2', 'openai', {}],
    ['anthropic:claude-x', '@anthropic-ai/sdk', { ANTHROPIC_API_KEY: 'sk-test' }],
  ] as const)('--model %s without %s: INVALID_CONFIGURATION, exit 2', async (model, pkg, env) => {
    const run = await runMuster(bin, ['run', 'hi', '--model', model], {
      cwd: ok.workdir,
      env: { MUSTER_HOME: ok.home, ...env },
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('error [INVALID_CONFIGURATION]');
    expect(run.stderr).toContain(`npm i ${pkg}`);
    expect(run.stderr).toContain(`--model ${model}`);
    expect(run.stderr).not.toContain('INTERNAL_ERROR');
    const json = await runMuster(bin, ['--json', 'run', 'hi', '--model', model], {
      cwd: ok.workdir,
      env: { MUSTER_HOME: ok.home, ...env },
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'INVALID_CONFIGURATION' } });
  });
});
