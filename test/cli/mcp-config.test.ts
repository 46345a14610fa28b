import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/index.js';
import { everythingStdioConfig } from '../support/mcp-fixtures.js';
import { musterDirs, useMcpCliFixtures } from './mcp-cli-env.js';

// `muster mcp add|get|list --no-connect|remove` edit the config files as the library reads
// them: the files load with createAgent, bad input writes nothing, secrets never print.

const ENV_CANARY = 'env-canary-7f3a9c2e51';
const HEADER_CANARY = 'header-canary-c41d8e0b77';

const fixtures = useMcpCliFixtures();
const cli = fixtures.cli;

function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe('muster mcp add, get, remove', () => {
  it('gives every subcommand --help with examples', async () => {
    const dirs = musterDirs(cli.bin);
    const runs = await Promise.all(
      ['add', 'remove', 'get', 'list', 'tools', 'call'].map((c) => dirs.run(['mcp', c, '--help'])),
    );
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Examples:\n {2}\$ muster mcp /);
      expect(r.stdout).toContain('Exit codes:');
    }
  });

  it('writes files createAgent loads unchanged, keeping other entries and the indentation', async () => {
    const dirs = musterDirs(cli.bin);
    const ev = everythingStdioConfig();
    // an existing project file, indented with 4 spaces, with an entry to keep
    const existing = { mcpServers: { keep: { command: ev.command, args: ev.args } } };
    writeFile(dirs.projectFile, `${JSON.stringify(existing, null, 4)}\n`);

    const stdio = await dirs.json([
      'mcp',
      'add',
      'ev',
      '--env',
      `CANARY=${ENV_CANARY}`,
      '--',
      ev.command,
      ...ev.args,
    ]);
    expect(stdio.code).toBe(0);
    expect(stdio.doc).toEqual({
      added: { name: 'ev', scope: 'project', type: 'stdio', path: dirs.projectFile },
    });
    const remote = await dirs.json([
      'mcp',
      'add',
      'web',
      '--scope',
      'user',
      '--transport',
      'http',
      fixtures.http.url,
      '--header',
      `X-Api-Key: ${HEADER_CANARY}`,
    ]);
    expect(remote.code).toBe(0);
    expect(remote.doc).toMatchObject({ added: { name: 'web', scope: 'user', type: 'http' } });

    const { project, user } = dirs.files();
    expect(project).toBe(
      `${JSON.stringify(
        {
          mcpServers: {
            ...existing.mcpServers,
            ev: { command: ev.command, args: ev.args, env: { CANARY: ENV_CANARY } },
          },
        },
        null,
        4,
      )}\n`,
    );
    expect(JSON.parse(user!)).toEqual({
      mcpServers: {
        web: { type: 'http', url: fixtures.http.url, headers: { 'X-Api-Key': HEADER_CANARY } },
      },
    });
    // a new user file may hold secrets: only its owner reads it
    expect(statSync(dirs.userFile).mode & 0o077).toBe(0);

    // the library loads both files as written, and connects every server
    const saved = process.env['MUSTER_HOME'];
    process.env['MUSTER_HOME'] = dirs.home;
    // the host allows connections, as a run's policy would
    const agent = createAgent({ workdir: dirs.workdir, policy: { allow: ['mcp_connect:*'] } });
    try {
      expect(agent.mcp.list().map((s) => [s.name, s.source, s.type])).toEqual([
        ['keep', 'project', 'stdio'],
        ['ev', 'project', 'stdio'],
        ['web', 'user', 'http'],
      ]);
      await agent.initialize();
      expect(agent.mcp.list().map((s) => s.status)).toEqual([
        'connected',
        'connected',
        'connected',
      ]);
      expect(agent.mcp.list()[2]!.tools.map((t) => t.originalName)).toContain('echo');
    } finally {
      await agent.close();
      process.env['MUSTER_HOME'] = saved;
    }

    // get and list --no-connect show the declarations with every secret redacted
    const get = await dirs.json(['mcp', 'get', 'web']);
    expect(get.doc).toEqual({
      server: {
        name: 'web',
        scope: 'user',
        scopes: ['user'],
        path: dirs.userFile,
        type: 'http',
        config: { type: 'http', url: fixtures.http.url, headers: { 'X-Api-Key': '<redacted>' } },
      },
    });
    const getEv = await dirs.json(['mcp', 'get', 'ev']);
    expect(getEv.doc).toMatchObject({
      server: { scope: 'project', config: { command: ev.command, env: { CANARY: '<redacted>' } } },
    });
    const listed = await dirs.json(['mcp', 'list', '--no-connect']);
    expect(
      (listed.doc['servers'] as { name: string; scope: string }[]).map((s) => [s.name, s.scope]),
    ).toEqual([
      ['keep', 'project'],
      ['ev', 'project'],
      ['web', 'user'],
    ]);
    const human = await Promise.all([
      dirs.run(['mcp', 'get', 'web']),
      dirs.run(['mcp', 'get', 'ev']),
      dirs.run(['mcp', 'list', '--no-connect']),
    ]);
    for (const r of [get, getEv, listed, ...human]) {
      expect(r.code).toBe(0);
      for (const secret of [ENV_CANARY, HEADER_CANARY]) {
        expect(r.stdout).not.toContain(secret);
        expect(r.stderr).not.toContain(secret);
      }
    }
    expect(human[0]!.stdout).toContain('<redacted>');

    // remove finds the scope itself and keeps the other entries and the indentation
    const removed = await dirs.json(['mcp', 'remove', 'ev']);
    expect(removed.doc).toEqual({
      removed: { name: 'ev', scope: 'project', path: dirs.projectFile },
    });
    expect(dirs.files().project).toBe(`${JSON.stringify(existing, null, 4)}\n`);
    const removedWeb = await dirs.json(['mcp', 'remove', 'web']);
    expect(removedWeb.doc).toMatchObject({ removed: { name: 'web', scope: 'user' } });
    expect(JSON.parse(dirs.files().user!)).toEqual({ mcpServers: {} });
    const gone = await dirs.json(['mcp', 'get', 'web']);
    expect(gone.code).toBe(2);
    expect(gone.doc).toMatchObject({ error: { code: 'INVALID_CONFIGURATION' } });
  }, 120_000);

  it('refuses a name that exists in either scope, and an ambiguous remove, writing nothing', async () => {
    const dirs = musterDirs(cli.bin);
    expect((await dirs.run(['mcp', 'add', 'one', '--', 'node', 'server.js'])).code).toBe(0);
    const before = dirs.files();
    for (const scope of ['project', 'user']) {
      const again = await dirs.json(['mcp', 'add', 'one', '--scope', scope, '--', 'node', 'b.js']);
      expect(again.code).toBe(2);
      expect(again.doc).toMatchObject({ error: { code: 'INVALID_CONFIGURATION' } });
      expect((again.doc['error'] as { message: string }).message).toContain(
        'muster mcp remove one',
      );
      expect(dirs.files()).toEqual(before);
    }
    // the same name in both files (written by hand): remove needs --scope
    writeFile(dirs.userFile, before.project!);
    const ambiguous = await dirs.json(['mcp', 'remove', 'one']);
    expect(ambiguous.code).toBe(2);
    expect((ambiguous.doc['error'] as { message: string }).message).toContain('--scope');
    expect(dirs.files()).toEqual({ project: before.project, user: before.project });
    expect((await dirs.run(['mcp', 'remove', 'one', '--scope', 'user'])).code).toBe(0);
    expect(dirs.files().project).toBe(before.project);
  }, 60_000);

  const bad: [string, string[]][] = [
    [
      'an unknown scope',
      ['add', 'x', '--scope', 'global', '--transport', 'http', 'https://a.example/mcp'],
    ],
    ['a name with __', ['add', 'a__b', '--transport', 'http', 'https://a.example/mcp']],
    ['a name too long', ['add', 'x'.repeat(25), '--transport', 'http', 'https://a.example/mcp']],
    [
      'an http URL to a remote host',
      ['add', 'x', '--transport', 'http', 'http://mcp.example.com/mcp'],
    ],
    [
      'a URL with credentials',
      ['add', 'x', '--transport', 'http', `https://u:${HEADER_CANARY}@a.example/mcp`],
    ],
    [
      'the reserved header Mcp-Session-Id',
      [
        'add',
        'x',
        '--transport',
        'http',
        'https://a.example/mcp',
        '--header',
        `Mcp-Session-Id: ${HEADER_CANARY}`,
      ],
    ],
    [
      'the reserved header Host',
      [
        'add',
        'x',
        '--transport',
        'sse',
        'https://a.example/sse',
        '--header',
        `Host: ${HEADER_CANARY}`,
      ],
    ],
    [
      'a header without a colon',
      ['add', 'x', '--transport', 'http', 'https://a.example/mcp', '--header', HEADER_CANARY],
    ],
    ['an unknown transport', ['add', 'x', '--transport', 'websocket', 'wss://a.example/mcp']],
    [
      'env on an http server',
      ['add', 'x', '--transport', 'http', 'https://a.example/mcp', '--env', `K=${ENV_CANARY}`],
    ],
    ['a stdio server without a command', ['add', 'x', '--env', `K=${ENV_CANARY}`]],
  ];

  it.each(bad)(
    'refuses %s with INVALID_CONFIGURATION, exit 2, writing nothing',
    async (_what, args) => {
      const dirs = musterDirs(cli.bin);
      // both scopes hold a file already: it must stay byte-identical
      const text = `{\n\t"mcpServers": {\n\t\t"keep": { "command": "node" }\n\t}\n}\n`;
      writeFile(dirs.userFile, text);
      for (const json of [true, false]) {
        const r = await dirs.run([...(json ? ['--json'] : []), 'mcp', ...args]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('error [INVALID_CONFIGURATION]');
        if (json)
          expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'INVALID_CONFIGURATION' } });
        else expect(r.stdout).toBe('');
        for (const secret of [ENV_CANARY, HEADER_CANARY])
          expect(r.stdout + r.stderr).not.toContain(secret);
        expect(dirs.files()).toEqual({ project: undefined, user: text });
      }
    },
    60_000,
  );
});
