import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPackage, entryExports, entryPoints, modulesLoadedBy } from './built-package.js';

// Importing the package root must stay cheap (SPEC 1.6): none of these may load until a
// connect, a schema validation or a provider needs them.
const HEAVY = [
  ['the MCP client', /\/node_modules\/@modelcontextprotocol\/client\//],
  ['the MCP server', /\/node_modules\/@modelcontextprotocol\/server\//],
  ['zod', /\/node_modules\/zod\//],
  ['ajv', /\/node_modules\/ajv(-formats)?\//],
  ['re2js', /\/node_modules\/re2js\//],
  ['openai', /\/node_modules\/openai\//],
  ['@anthropic-ai/sdk', /\/node_modules\/@anthropic-ai\/sdk\//],
  ['the AI SDK', /\/node_modules\/@ai-sdk\//],
  ['better-sqlite3', /\/node_modules\/better-sqlite3\//],
  ['pg', /\/node_modules\/pg\//],
  ['node:child_process', /^node:child_process$/],
] as const;

const heavyIn = (urls: readonly string[]) =>
  HEAVY.filter(([, pattern]) => urls.some((u) => pattern.test(u))).map(([name]) => name);

// The package's own parts that load on first use, through a dynamic import() (the bundle keeps
// each in a chunk of its own): none may load with the root.
const LAZY = [
  'mcp/transports/stdio-transport.js',
  'mcp/tasks/task-poller.js',
  'studio/studio-start.js',
  'cli/program.js',
  'session/sqlite.js',
  'session/postgres.js',
  'worker/index.js',
  'providers/openai.js',
] as const;

const lazyIn = (urls: readonly string[]) =>
  LAZY.filter((path) => urls.some((u) => u.endsWith(`/dist/${path}`)));

/** The `.js` files of the built package's `dist/` (the studio page's left out). */
const distFiles = (dir: string) =>
  readdirSync(join(dir, 'dist'), { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.js') && !f.startsWith('studio-ui'),
  );

let built: ReturnType<typeof buildPackage>;
beforeAll(() => {
  built = buildPackage();
}, 120_000);

const rootUrl = () => pathToFileURL(entryPoints(built.dir).find((e) => e.subpath === '.')!.js).href;

describe('the built package', () => {
  it('importing the root loads none of the MCP client or server, zod, ajv, re2js, the vendor SDKs or child_process', () => {
    const urls = modulesLoadedBy(`await import(${JSON.stringify(rootUrl())});`, built.dir);
    expect(urls.length).toBeGreaterThan(5); // the recorder saw the package's own modules
    expect(heavyIn(urls)).toEqual([]);
  });

  it('importing the root reads a few bundled files, not one file per module, and no lazy part', () => {
    const urls = modulesLoadedBy(`await import(${JSON.stringify(rootUrl())});`, built.dir);
    const dist = pathToFileURL(realpathSync(join(built.dir, 'dist'))).href;
    const files = new Set(
      urls.filter((u) => u.startsWith(`${dist}/`) && existsSync(fileURLToPath(u))),
    );
    // Node.js 20 spends about 0.7 ms per module it loads; the root was ~180 of them unbundled
    expect(files.size).toBeLessThanOrEqual(15);
    // the modules in those files are still there, under the names they had (the agent's own)
    expect(urls).toContain(`${dist}/agent/agent.js`);
    expect(lazyIn(urls)).toEqual([]);
  });

  it('bundles every module once: one copy (one MusterError) whichever entry point imports it', () => {
    // module -> the files it is in (esbuild may name a module twice within one file)
    const seen = new Map<string, Set<string>>();
    for (const file of distFiles(built.dir)) {
      const text = readFileSync(join(built.dir, 'dist', file), 'utf8');
      for (const [, module] of text.matchAll(/^\/\/ dist\/(\S+\.js)$/gm))
        seen.set(module!, (seen.get(module!) ?? new Set()).add(file));
    }
    expect(seen.size).toBeGreaterThan(100); // the bundles name their modules
    expect([...seen].filter(([, files]) => files.size > 1).map(([m]) => m)).toEqual([]);
    expect(seen.get('errors/muster-error.js')?.size).toBe(1);
  });

  it('the root and muster-agent/mcp share their modules: the same functions and error classes', () => {
    const url = (subpath: string) =>
      pathToFileURL(entryPoints(built.dir).find((e) => e.subpath === subpath)!.js).href;
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const root = await import(${JSON.stringify(url('.'))});
         const mcp = await import(${JSON.stringify(url('./mcp'))});
         let thrown;
         try { mcp.assertMcpExtensionSupported('no-such-extension'); } catch (err) { thrown = err; }
         process.stdout.write(JSON.stringify({
           sameFunction: root.fileTokenStore === mcp.fileTokenStore,
           musterError: thrown instanceof root.MusterError,
           mcpError: thrown instanceof root.McpError,
           code: thrown?.code,
         }));`,
      ],
      { cwd: built.dir, encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual({
      sameFunction: true,
      musterError: true,
      mcpError: true,
      code: 'MCP_EXTENSION_UNSUPPORTED',
    });
  });

  it('createSdkMcpServer and createAgent with MCP servers still load none of them', () => {
    const urls = modulesLoadedBy(
      `const m = await import(${JSON.stringify(rootUrl())});
       const server = m.createSdkMcpServer({ name: 'crm', tools: [] });
       m.createAgent({ mcpServers: { crm: { type: 'sdk', server } }, mcp: { strictConfig: true } });`,
      built.dir,
    );
    // declarations are validated by hand-written checks: not even zod loads
    expect(heavyIn(urls)).toEqual([]);
  });

  it('importing muster-agent/mcp loads no agent code and nothing heavy', () => {
    const entry = entryPoints(built.dir).find((e) => e.subpath === './mcp')!;
    const urls = modulesLoadedBy(
      `await import(${JSON.stringify(pathToFileURL(entry.js).href)});`,
      built.dir,
    );
    expect(urls.some((u) => u.includes('/mcp/mcp-client-manager.js'))).toBe(true);
    expect(urls.filter((u) => /\/dist\/agent\//.test(u))).toEqual([]);
    expect(heavyIn(urls)).toEqual([]);
  });

  it('importing muster-agent/query loads nothing heavy (query() is a facade over the agent)', () => {
    const entry = entryPoints(built.dir).find((e) => e.subpath === './query')!;
    const urls = modulesLoadedBy(
      `const m = await import(${JSON.stringify(pathToFileURL(entry.js).href)});
       if (typeof m.query !== 'function') throw new Error('no query()');`,
      built.dir,
    );
    expect(urls.some((u) => u.includes('/dist/query/query.js'))).toBe(true);
    expect(heavyIn(urls)).toEqual([]);
  });

  it('the recorder does see heavy modules when an entry point loads them (the check can fail)', () => {
    const openai = entryPoints(built.dir).find((e) => e.subpath === './openai')!;
    const urls = modulesLoadedBy(
      `await import(${JSON.stringify(pathToFileURL(openai.js).href)});`,
      built.dir,
    );
    expect(heavyIn(urls)).toContain('openai');
    for (const [subpath, heavy] of [
      ['./anthropic', '@anthropic-ai/sdk'],
      ['./ai-sdk', 'the AI SDK'],
    ] as const) {
      const entry = entryPoints(built.dir).find((e) => e.subpath === subpath)!;
      const loaded = modulesLoadedBy(
        `await import(${JSON.stringify(pathToFileURL(entry.js).href)});`,
        built.dir,
      );
      expect(heavyIn(loaded)).toEqual([heavy]);
    }
  });

  it('the sqlite and postgres entries load their drivers, and only theirs', () => {
    for (const [subpath, driver] of [
      ['./sqlite', 'better-sqlite3'],
      ['./postgres', 'pg'],
    ] as const) {
      const entry = entryPoints(built.dir).find((e) => e.subpath === subpath)!;
      const urls = modulesLoadedBy(
        `await import(${JSON.stringify(pathToFileURL(entry.js).href)});`,
        built.dir,
      );
      expect(heavyIn(urls)).toEqual([driver]);
    }
  });

  it('the public exports of every entry point match the committed list', async () => {
    const api = entryExports(built.dir);
    // An added or removed export is an API decision: review it, then run `npx vitest -u`.
    await expect(`${JSON.stringify(api, null, 2)}\n`).toMatchFileSnapshot('./public-api.json');
  });
});
