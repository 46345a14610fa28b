import {
  copyFileSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/index.js';
import { runMuster } from '../support/cli.js';
import { everythingStdioConfig } from '../support/mcp-fixtures.js';
import { musterDirs, useMcpCliFixtures } from './mcp-cli-env.js';
import type { MusterDirs } from './mcp-cli-env.js';

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
      ['add', 'import', 'remove', 'get', 'list', 'tools', 'call'].map((c) =>
        dirs.run(['mcp', c, '--help']),
      ),
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

// `muster mcp import` over fixtures of the four formats it reads (test/fixtures/import/).
const IMPORT_FIXTURES = fileURLToPath(new URL('../fixtures/import/', import.meta.url));
const TOKEN_CANARY = 'canary-value';
const SKIP_DEFAULT_CANARY = 'not-a-value-to-print';

/** Every file's text under `dirs` (the written config, temporary files left behind, ...). */
function allFileTexts(...dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8')),
  );
}

/** The text `writeConfigFile` writes for an expected file (its formatting may differ). */
function expectedText(name: string): string {
  const parsed: unknown = JSON.parse(readFileSync(join(IMPORT_FIXTURES, name), 'utf8'));
  return `${JSON.stringify(parsed, null, 2)}\n`;
}

describe('item-04: muster mcp import reads Claude Code, Claude Desktop, Cursor and VS Code files', () => {
  /** `muster <args>` in the dirs, with GITHUB_TOKEN set (it must never be expanded). */
  function importRun(dirs: MusterDirs, args: readonly string[]) {
    return runMuster(cli.bin, args, {
      cwd: dirs.workdir,
      env: { MUSTER_HOME: dirs.home, GITHUB_TOKEN: TOKEN_CANARY, BRAVE_API_KEY: TOKEN_CANARY },
    });
  }

  it('writes the expected file for each format, skipping entries that hold ${...}', async () => {
    const formats = [
      ['claude', 'claude/.mcp.json'],
      ['claude-desktop', 'claude-desktop/claude_desktop_config.json'],
      ['cursor', 'cursor/.cursor/mcp.json'],
      ['vscode', 'vscode/.vscode/mcp.json'],
    ] as const;
    const runs = await Promise.all(
      formats.map(async ([format, file]) => {
        const dirs = musterDirs(cli.bin);
        const r = await importRun(dirs, ['--json', 'mcp', 'import', join(IMPORT_FIXTURES, file)]);
        return { format, file, dirs, r };
      }),
    );
    const skippedBy: Record<string, unknown> = {};
    for (const { format, file, dirs, r } of runs) {
      expect(r.code, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(doc).toMatchObject({
        file: join(IMPORT_FIXTURES, file),
        from: format,
        scope: 'project',
        path: dirs.projectFile,
        unchanged: [],
      });
      skippedBy[format] = doc['skipped'];
      // the written file equals the expected one, byte for byte as Muster writes files
      expect(dirs.files()).toEqual({
        project: expectedText(`${format}.expected.json`),
        user: undefined,
      });
      expect((doc['imported'] as { name: string }[]).map((s) => s.name)).toEqual(
        Object.keys((JSON.parse(dirs.files().project!) as { mcpServers: object }).mcpServers),
      );
      // nothing expanded, nothing left behind: no value and no ${...} in any file
      for (const text of allFileTexts(dirs.workdir, dirs.home)) {
        expect(text).not.toContain(TOKEN_CANARY);
        expect(text).not.toContain('${');
      }
      for (const secret of [TOKEN_CANARY, SKIP_DEFAULT_CANARY, '${GITHUB_TOKEN}'])
        expect(r.stdout + r.stderr).not.toContain(secret);
    }
    expect(runs[0]!.r.stdout).toContain('"type": "sse"');
    // each skipped entry is listed with its field and the variable's name, never a value
    expect(skippedBy).toEqual({
      claude: [{ name: 'github', fields: [{ field: 'env.TOKEN', variables: ['GITHUB_TOKEN'] }] }],
      'claude-desktop': [
        {
          name: 'brave-search',
          fields: [{ field: 'env.BRAVE_API_KEY', variables: ['BRAVE_API_KEY'] }],
        },
      ],
      cursor: [
        {
          name: 'context7',
          fields: [{ field: 'headers.CONTEXT7_API_KEY', variables: ['env:CONTEXT7_API_KEY'] }],
        },
      ],
      vscode: [
        {
          name: 'perplexity',
          fields: [{ field: 'env.PERPLEXITY_API_KEY', variables: ['input:perplexity-key'] }],
        },
        { name: 'workspace', fields: [{ field: 'args[0]', variables: ['workspaceFolder'] }] },
      ],
    });

    // the library loads the written file as it is
    const claude = runs[0]!.dirs;
    const agent = createAgent({
      workdir: claude.workdir,
      mcp: { transports: ['stdio', 'http', 'sse'] },
    });
    try {
      expect(agent.mcp.list().map((s) => [s.name, s.source, s.type])).toEqual([
        ['files', 'project', 'stdio'],
        ['docs', 'project', 'http'],
        ['legacy', 'project', 'sse'],
      ]);
    } finally {
      await agent.close();
    }

    // again, for a person: identical entries deduplicate (the file stays byte-identical), the
    // skipped one is named with what to do, and --from with --scope user writes the user file
    const before = claude.files();
    const renamed = join(claude.workdir, 'servers.json');
    copyFileSync(join(IMPORT_FIXTURES, 'vscode/.vscode/mcp.json'), renamed);
    const [again, user] = await Promise.all([
      importRun(claude, ['mcp', 'import', join(IMPORT_FIXTURES, 'claude/.mcp.json')]),
      importRun(claude, [
        '--json',
        'mcp',
        'import',
        'servers.json',
        '--from',
        'vscode',
        '--scope',
        'user',
      ]),
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(claude.files().project).toBe(before.project);
    expect(again.stdout).toContain(
      'Already declared identically, left as they are: files, docs, legacy.',
    );
    expect(again.stdout).toContain('github: env.TOKEN uses GITHUB_TOKEN');
    for (const hint of ["'muster mcp add", 'mcpServers', 'agent.mcp.register()'])
      expect(again.stdout).toContain(hint);
    expect(again.stdout + again.stderr).not.toContain(TOKEN_CANARY);
    expect(user.code, user.stderr).toBe(0);
    expect(JSON.parse(user.stdout)).toMatchObject({
      from: 'vscode',
      scope: 'user',
      path: claude.userFile,
    });
    expect(claude.files().user).toBe(expectedText('vscode.expected.json'));
    expect(statSync(claude.userFile).mode & 0o077).toBe(0);
  }, 120_000);

  it('refuses bad input with INVALID_CONFIGURATION, exit 2, leaving both files byte-identical', async () => {
    const dirs = musterDirs(cli.bin);
    const project = `{\n\t"mcpServers": {\n\t\t"keep": { "command": "node", "args": ["a.js"] }\n\t}\n}\n`;
    const user = `{\n    "mcpServers": {\n        "shared": { "type": "http", "url": "https://a.example/mcp" }\n    }\n}\n`;
    writeFile(dirs.projectFile, project);
    writeFile(dirs.userFile, user);
    const ok = { fine: { command: 'node', args: ['fine.js'] } };
    const source = (name: string, text: string) => {
      const path = join(dirs.workdir, 'in', name);
      writeFile(path, text);
      return path;
    };
    const json = (servers: object, extra: object = {}) =>
      JSON.stringify({ mcpServers: { ...ok, ...servers }, ...extra });
    const cases: [string, string[], RegExp][] = [
      [
        'not JSON',
        ['mcp', 'import', source('broken.json', `{ "mcpServers": { "x": ${TOKEN_CANARY}`)],
        /not valid JSON/,
      ],
      ['a missing file', ['mcp', 'import', join(dirs.workdir, 'nope.json')], /Cannot read/],
      [
        'an unknown top-level key',
        ['mcp', 'import', source('.mcp.json', json({}, { extra: 1 }))],
        /unknown top-level key\(s\) extra/,
      ],
      [
        'an unknown key in an entry',
        [
          'mcp',
          'import',
          source('envfile.json', json({ x: { command: 'node', envFile: '.env' } })),
        ],
        /unknown key\(s\) envFile/,
      ],
      [
        'a refused name',
        ['mcp', 'import', source('name.json', json({ a__b: { command: 'node' } }))],
        /Invalid MCP server name "a__b"/,
      ],
      [
        'an http URL to a remote host',
        [
          'mcp',
          'import',
          source('url.json', json({ x: { type: 'http', url: 'http://mcp.example.com/mcp' } })),
        ],
        /non-loopback host.*Fix or rename the entry in/,
      ],
      [
        'a VS Code file given as claude',
        ['mcp', 'import', source('vs.json', JSON.stringify({ servers: ok })), '--from', 'claude'],
        /unknown top-level key\(s\) servers/,
      ],
      [
        'an unknown --from',
        ['mcp', 'import', source('from.json', json({})), '--from', 'zed'],
        /--from/,
      ],
      [
        'an unknown --scope',
        ['mcp', 'import', source('scope.json', json({})), '--scope', 'global'],
        /scope/,
      ],
    ];
    const conflicts: [string, string[], RegExp][] = [
      [
        'a name declared differently in the target',
        ['mcp', 'import', source('keep.json', json({ keep: { command: 'node', args: ['b.js'] } }))],
        new RegExp(
          `in the project config \\(${dirs.projectFile}\\) and in the file to import ${join(dirs.workdir, 'in', 'keep.json')}`,
        ),
      ],
      [
        'a name declared differently in the other scope',
        [
          'mcp',
          'import',
          source('shared.json', json({ shared: { type: 'http', url: 'https://b.example/mcp' } })),
        ],
        new RegExp(`in the user config \\(${dirs.userFile}\\) and in the file to import`),
      ],
    ];
    const runs = await Promise.all(
      [...cases, ...conflicts].map(async ([what, args, message]) => ({
        what,
        message,
        r: await importRun(dirs, ['--json', ...args]),
      })),
    );
    for (const { what, message, r } of runs) {
      expect([what, r.code]).toEqual([what, 2]);
      const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
      expect([what, error.code]).toEqual([what, 'INVALID_CONFIGURATION']);
      expect(error.message).toMatch(message);
      expect(r.stderr).toContain('error [INVALID_CONFIGURATION]');
      expect(r.stdout + r.stderr).not.toContain(TOKEN_CANARY);
    }
    expect(dirs.files()).toEqual({ project, user });
    expect(readdirSync(join(dirs.workdir, '.muster'))).toEqual(['mcp.json']);
  }, 120_000);
});
