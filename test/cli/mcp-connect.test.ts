import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { everythingStdioConfig, filesystemStdioConfig } from '../support/mcp-fixtures.js';
import { musterDirs, useMcpCliFixtures } from './mcp-cli-env.js';

// `muster mcp list|tools|call` connect for real: server-everything from npm over stdio and a
// loopback Streamable HTTP server, each declared by `muster mcp add` in both scopes.

const ENV_CANARY = 'env-canary-5b8e1d0c93';
const HEADER_CANARY = 'header-canary-a92f6e7d14';

const fixtures = useMcpCliFixtures();
const cli = fixtures.cli;

interface Case {
  readonly transport: 'stdio' | 'http';
  readonly add: () => string[];
  readonly tool: string;
  readonly args: string[];
  readonly expected: string;
}

const ev = everythingStdioConfig();
const cases: Case[] = [
  {
    transport: 'stdio',
    add: () => ['--env', `CANARY=${ENV_CANARY}`, '--', ev.command, ...ev.args],
    tool: 'echo',
    args: ['--arg', 'message=hello from the cli'],
    expected: 'Echo: hello from the cli',
  },
  {
    transport: 'http',
    add: () => [
      '--transport',
      'http',
      fixtures.http.url,
      '--header',
      `X-Api-Key: ${HEADER_CANARY}`,
    ],
    tool: 'echo',
    args: ['--args', '{"text":"hello over http"}'],
    expected: 'hello over http',
  },
];

interface ListedServer {
  name: string;
  scope: string;
  type: string;
  status: string;
  tools: string[];
}
interface ListedTool {
  name: string;
  modelName: string;
  annotations?: Record<string, unknown>;
  inputSchema: { type: string; properties?: Record<string, unknown> };
}

describe.each(['project', 'user'])('muster mcp in the %s scope', (scope) => {
  it.each(cases)(
    'adds, lists connected, lists tools, calls and removes a $transport server',
    async (c) => {
      const dirs = musterDirs(cli.bin);
      const name = `${c.transport}-srv`;
      const add = await dirs.json(['mcp', 'add', name, '--scope', scope, ...c.add()]);
      expect(add.doc).toMatchObject({ added: { name, scope, type: c.transport } });

      const list = await dirs.json(['mcp', 'list']);
      expect(list.code).toBe(0);
      const servers = list.doc['servers'] as ListedServer[];
      expect(servers).toHaveLength(1);
      expect(servers[0]).toMatchObject({ name, scope, type: c.transport, status: 'connected' });
      expect(servers[0]!.tools).toContain(c.tool);

      const tools = await dirs.json(['mcp', 'tools', name]);
      expect(tools.code).toBe(0);
      const listed = tools.doc['tools'] as ListedTool[];
      const echo = listed.find((t) => t.name === c.tool);
      expect(echo).toMatchObject({
        modelName: `mcp__${name}__${c.tool}`,
        annotations: { readOnlyHint: true },
        inputSchema: { type: 'object' },
      });
      expect(Object.keys(echo!.inputSchema.properties ?? {})).toHaveLength(1);

      const call = await dirs.json(['mcp', 'call', name, c.tool, ...c.args]);
      expect(call.code).toBe(0);
      expect(call.doc).toMatchObject({
        server: name,
        tool: c.tool,
        policy: { decision: 'allow', stage: 'default' },
        result: { content: c.expected },
      });
      const text = await dirs.run(['mcp', 'call', name, c.tool, ...c.args]);
      expect(text).toMatchObject({ code: 0, stdout: `${c.expected}\n` });

      // the human views, like the JSON ones, never show a secret
      const human = await dirs.run(['mcp', 'list']);
      expect(human.stdout).toContain('connected');
      for (const r of [list, tools, human])
        for (const secret of [ENV_CANARY, HEADER_CANARY])
          expect(r.stdout + r.stderr).not.toContain(secret);

      const removed = await dirs.json(['mcp', 'remove', name]);
      expect(removed.doc).toMatchObject({ removed: { name, scope } });
      expect((await dirs.json(['mcp', 'list'])).doc).toEqual({ servers: [] });
    },
    120_000,
  );
});

describe('muster mcp call and the policy', () => {
  it('denies with --deny or --default deny (exit 5) and checks arguments first (exit 6)', async () => {
    const dirs = musterDirs(cli.bin);
    await dirs.run(['mcp', 'add', 'ev', '--', ev.command, ...ev.args]);
    const sum = ['mcp', 'call', 'ev', 'get-sum', '--arg', 'a=2', '--arg', 'b=3'];
    const allowed = await dirs.json(sum);
    expect(allowed.doc).toMatchObject({ result: { content: expect.stringContaining('5') } });
    const denied = await dirs.json([...sum, '--deny', 'mcp__ev__get-*', '--allow', 'mcp__ev']);
    expect(denied.code).toBe(5);
    expect(denied.doc).toMatchObject({ error: { code: 'TOOL_DENIED' } });
    const byDefault = await dirs.json([...sum, '--default', 'deny']);
    expect(byDefault.code).toBe(5);
    const allowedByPattern = await dirs.json([
      ...sum,
      '--default',
      'deny',
      '--allow',
      'mcp__ev__get-sum',
    ]);
    expect(allowedByPattern.doc).toMatchObject({ policy: { decision: 'allow', stage: 'allow' } });
    const ask = await dirs.json([...sum, '--default', 'ask']);
    expect(ask.code).toBe(5);
    expect(ask.doc).toMatchObject({ error: { code: 'TOOL_APPROVAL_REQUIRED' } });
    const badArgs = await dirs.json([
      'mcp',
      'call',
      'ev',
      'get-sum',
      '--arg',
      'a=two',
      '--arg',
      'b=3',
    ]);
    expect(badArgs.code).toBe(6);
    expect(badArgs.doc).toMatchObject({ error: { code: 'TOOL_ARGUMENTS_INVALID' } });
    const unknown = await dirs.json(['mcp', 'call', 'ev', 'no-such-tool']);
    expect(unknown.code).toBe(6);
    expect(unknown.doc).toMatchObject({ error: { code: 'TOOL_NOT_FOUND' } });
    const badPattern = await dirs.json([...sum, '--default', 'sometimes']);
    expect(badPattern.code).toBe(2);
  }, 120_000);

  it('reports a server that cannot connect as failed in list, and exit 3 from tools', async () => {
    const dirs = musterDirs(cli.bin);
    await dirs.run(['mcp', 'add', 'broken', '--', process.execPath, '-e', 'process.exit(3)']);
    await dirs.run(['mcp', 'add', 'ev', '--scope', 'user', '--', ev.command, ...ev.args]);
    const list = await dirs.json(['mcp', 'list']);
    expect(list.code).toBe(0);
    const statuses = (list.doc['servers'] as ListedServer[]).map((s) => [s.name, s.status]);
    expect(statuses).toEqual([
      ['broken', 'failed'],
      ['ev', 'connected'],
    ]);
    const tools = await dirs.json(['mcp', 'tools', 'broken']);
    expect(tools.code).toBe(3);
    expect(tools.doc).toMatchObject({ error: { code: 'MCP_CONNECTION_FAILED' } });
  }, 120_000);
});

describe('muster mcp call prints what the server sent once (item-07)', () => {
  it('prints a file read through server-filesystem as its text, and --json the whole', async () => {
    const dirs = musterDirs(cli.bin);
    const file = join(dirs.workdir, 'notes.txt');
    const text = 'line "one" C:\\notes\n'.repeat(600);
    writeFileSync(file, text);
    const fs = filesystemStdioConfig(dirs.workdir);
    await dirs.run(['mcp', 'add', 'fs', '--', fs.command, ...fs.args]);
    const call = ['mcp', 'call', 'fs', 'read_text_file', '--arg', `path=${file}`];
    const printed = await dirs.run(call);
    expect(printed).toMatchObject({ code: 0, stdout: `${text}\n` });
    const whole = await dirs.json(call);
    expect(whole.doc['result']).toEqual({ content: text, structured: { content: text } });
  }, 120_000);
});
