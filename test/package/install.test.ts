import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage, ROOT } from './built-package.js';
import {
  installedPaths,
  installPacked,
  lockClosure,
  pack,
  packedFiles,
  repositoryLock,
  treeBytes,
  type Packed,
} from './packed-install.js';

// `npm i muster-agent` as a user runs it: the packed library in an empty folder, installed
// offline from the npm cache that `npm ci` filled. It brings what the library imports at run
// time and nothing else; the command and the studio come with `muster-agent-cli`.

/** What the library imports at run time (SPEC 2): these and what they need, nothing else. */
const RUNTIME = [
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/server',
  'zod',
  'ajv',
  'ajv-formats',
  'proper-lockfile',
  're2js',
];

/** What only the command and the studio import. */
const CLI_ONLY = ['commander', '@inquirer/prompts', 'ora', 'hono', '@hono/node-server'];

const work = mkdtempSync(join(tmpdir(), 'muster-install-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let library: Packed;
let cli: Packed;
beforeAll(() => {
  library = pack(buildPackage().dir, join(work, 'packs'));
  cli = pack(join(ROOT, 'packages/cli'), join(work, 'packs'));
}, 180_000);

const newFolder = (name: string) => {
  const dir = join(work, name);
  mkdirSync(dir);
  return dir;
};

const nameOf = (path: string) =>
  path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

function run(
  args: readonly string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args],
      {
        cwd,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: cwd,
          MUSTER_HOME: join(cwd, '.muster-home'),
        },
        encoding: 'utf8',
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        }),
    );
  });
}

describe('item-07: npm i muster-agent installs only what the library imports', () => {
  it('installs exactly the runtime packages and what they need: no command or studio packages', async () => {
    const app = newFolder('library');
    await installPacked(app, [library]);
    const installed = await installedPaths(app);
    const expected = [...lockClosure(repositoryLock(), '', RUNTIME), 'node_modules/muster-agent'];
    expect(installed).toEqual(expected.sort());
    expect(installed.map(nameOf).filter((name) => CLI_ONLY.includes(name))).toEqual([]);
    // what the install weighs, printed for comparison across changes
    console.info(
      `library install: ${installed.length} packages, ${treeBytes(join(app, 'node_modules'))} bytes`,
    );

    // the command's entry without its packages: a typed error saying what to install, not a
    // missing module
    const entry = join(app, 'node_modules/muster-agent/dist/cli/main.js');
    const bare = await run([entry, 'mcp', 'list'], app);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^error \[INVALID_CONFIGURATION\]: The muster command needs /);
    expect(bare.stderr).toContain('npm i -g muster-agent-cli');
    expect(bare.stderr).toContain('npx muster-agent-cli');
    for (const name of CLI_ONLY) expect(bare.stderr).toContain(name);
    expect(bare.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find package|\n\s+at /);
    const json = await run([entry, '--json', 'mcp', 'list'], app);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      error: {
        code: 'INVALID_CONFIGURATION',
        message: expect.stringContaining('muster-agent-cli'),
      },
    });
    // so does importing the entry, as the CLI package's bin does
    const imported = await run(
      ['--input-type=module', '-e', "await import('muster-agent/cli')"],
      app,
    );
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain('npm i -g muster-agent-cli');
    // and the studio's entry: importing it works, starting it names what to install
    const studio = await run(
      [
        '--input-type=module',
        '-e',
        `const { startStudio } = await import('muster-agent/studio');
         try { await startStudio(); } catch (e) { console.log(e.code, e.message); }`,
      ],
      app,
    );
    expect(studio.stdout).toMatch(
      /^INVALID_CONFIGURATION The studio needs hono and @hono\/node-server, which are not installed/,
    );
    expect(studio.stdout).toContain('npm i hono @hono/node-server');

    // require() says the package is ES modules only, for every entry point
    const required = await run(
      [
        '-e',
        `for (const id of ['muster-agent', 'muster-agent/mcp', 'muster-agent/query']) {
           try { require(id); console.log(id, 'loaded'); }
           catch (e) { console.log(id, e.code, e.message); }
         }`,
      ],
      app,
    );
    const lines = required.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toMatch(/^muster-agent\S* ERR_REQUIRE_ESM muster-agent is an ES module package/);
      expect(line).toContain("await import('muster-agent')");
    }

    // a consumer of the core types compiles without @types/node (none is installed here), on
    // TypeScript's default libraries (ES and DOM: AbortSignal, URL): no error in the consumer or
    // in muster-agent's declarations (skipLibCheck off to see them; the MCP SDK's own
    // declarations name Node's Buffer, which the README's note covers)
    writeFileSync(
      join(app, 'consumer.ts'),
      `import { createAgent, tool, MusterError } from 'muster-agent';
import { z } from 'zod';
const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const agent = createAgent({ tools: [add], policy: { allow: ['add'] } });
// @ts-expect-error: the types are real (not any): a tool's name is a string
tool({ name: 1, description: 'x', execute: () => 'x' });
export const done: Promise<void> = agent.close().catch((err: unknown) => {
  if (MusterError.isInstance(err)) throw err;
});
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: [],
          strict: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['consumer.ts'],
      }),
    );
    const typecheck = await run(
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(app, 'tsconfig.json')],
      app,
    );
    const errors = typecheck.stdout.split('\n').filter((line) => line.includes('error TS'));
    expect(
      errors.filter((line) => /^(consumer\.ts|node_modules\/muster-agent\/)/.test(line)),
    ).toEqual([]);
  }, 180_000);

  it('muster-agent-cli brings the command and the studio in one install: muster mcp list runs', async () => {
    // released together: the same version, the library at exactly it, the five at the ranges
    // the library accepts as peers
    expect(cli.manifest.version).toBe(library.manifest.version);
    expect(cli.manifest.dependencies).toEqual({
      'muster-agent': library.manifest.version,
      ...Object.fromEntries(
        CLI_ONLY.map((name) => [name, library.manifest.peerDependencies?.[name]]),
      ),
    });
    const app = newFolder('cli');
    await installPacked(app, [cli], [library]);
    const installed = await installedPaths(app);
    const names = installed.map(nameOf);
    for (const name of ['muster-agent', 'muster-agent-cli', ...CLI_ONLY])
      expect(names).toContain(name);
    const project = newFolder('project');
    const list = await run(
      [join(app, 'node_modules/.bin/muster'), '--json', 'mcp', 'list'],
      project,
    );
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ servers: [] });
    const version = await run([join(app, 'node_modules/.bin/muster'), '--version'], project);
    expect(version).toMatchObject({ code: 0, stdout: `${library.manifest.version}\n` });
  }, 180_000);

  it('ships no source map without its sources, in either package', () => {
    for (const dir of [buildPackage().dir, join(ROOT, 'packages/cli')]) {
      const files = packedFiles(dir);
      expect(files.length).toBeGreaterThan(0);
      expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    }
    expect(packedFiles(join(ROOT, 'packages/cli')).sort()).toEqual(
      ['LICENSE', 'README.md', 'bin/muster.js', 'package.json'].sort(),
    );
  }, 60_000);
});
