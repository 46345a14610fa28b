#!/usr/bin/env node
// Bundles the package's JS entry points (package.json `exports` and `bin`), as `tsc` emitted
// them into `dist/`, with esbuild: `npm run build` runs it after `tsc`. Node.js 20 spends about
// 0.7 ms on each module it loads, and the package root was about 270 small modules; bundled it is a
// handful of files (docs/decisions.md, "The built package is bundled").
//
//   node scripts/bundle-entries.mjs        (this repository: package.json beside dist/)
//   node scripts/bundle-entries.mjs DIR    (another package folder, e.g. a test's build)
//
// - Every entry keeps its path (`dist/index.js`, `dist/mcp/mcp-entry.js`, ...), so `exports`
//   and the `.d.ts` files `tsc` wrote beside them stay as they are.
// - `splitting`: a module used by several entries is in one shared chunk (`dist/chunks/`), so
//   there is one copy of it (one `MusterError` class whichever entry a user imports), and a
//   dynamic `import()` of the package's own code (transports, stores, the studio, the command's
//   program) is still a separate file loaded when it runs.
// - `packages: 'external'`: dependencies stay imports of node_modules, never inlined.
// - Each module keeps its own `import.meta.url`: the URL it had in `tsc`'s `dist/`, expressed
//   relative to the file it landed in, so paths it resolves relative to itself
//   (`../../package.json`, `../studio-ui/`, `createRequire`) still point where they did.
// - `tsc`'s `.js` files are replaced by the bundles; nothing else in `dist/` is touched.
// The output is deterministic (esbuild's chunk names are hashes of their content) and names
// each module it holds in a `// dist/<path>.js` comment, which the package tests read.
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Entry points beyond `exports`, under `dist/`, that this repository loads by path: the
 * command's program (run in-process by the CLI tests, beside `cli/main.js`) and the tools
 * folder's face (measured directly by the benchmarks). Neither is reachable through `exports`.
 */
export const INTERNAL_ENTRIES = ['cli/program.js', 'tools/index.js'];

/** Stands for a module's own `import.meta.url` until the file it lands in is known. */
const PLACEHOLDER = '__musterModuleUrl';

/**
 * The package's JS entry points, as paths under `dist/`: every `import` (or plain string)
 * target of `exports` and every `bin` that is a `.js` file in `dist/`.
 * @param {{ exports?: unknown, bin?: unknown }} pkg
 * @returns {string[]}
 */
export function entryFiles(pkg) {
  /** @type {string[]} */
  const targets = [];
  const visit = (/** @type {unknown} */ value, /** @type {string | undefined} */ condition) => {
    if (typeof value === 'string') {
      if (condition === undefined || condition === 'import' || condition === 'default')
        targets.push(value);
    } else if (value && typeof value === 'object')
      for (const [key, inner] of Object.entries(value))
        visit(inner, key.startsWith('.') ? undefined : key);
  };
  visit(pkg.exports, undefined);
  if (typeof pkg.bin === 'string') targets.push(pkg.bin);
  else if (pkg.bin && typeof pkg.bin === 'object') targets.push(...Object.values(pkg.bin));
  const files = targets
    .map((t) => /^\.\/dist\/(.+\.js)$/.exec(t)?.[1])
    .filter((t) => t !== undefined);
  return [...new Set(files)].sort();
}

/**
 * Gives each module a stand-in for `import.meta.url` naming its path under `dist/`; any other
 * use of `import.meta` fails the build (it would need the same care).
 * @param {string} dist
 * @returns {import('esbuild').Plugin}
 */
function ownModuleUrl(dist) {
  return {
    name: 'own-module-url',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        const other = /import\.meta(?!\.url\b)(\.\w+)?/.exec(text);
        if (other)
          throw new Error(
            `${args.path}: only import.meta.url is kept per module when bundling, not ${other[0]}`,
          );
        const path = relative(dist, args.path).split(sep).join('/');
        return {
          loader: 'js',
          contents: text.replaceAll('import.meta.url', `${PLACEHOLDER}(${JSON.stringify(path)})`),
        };
      });
    },
  };
}

/**
 * Replaces the stand-ins in `text`, a file written to `file`, with the URL each module had in
 * `dist/`, relative to the file's own `import.meta.url`.
 * @param {string} text
 * @param {string} file
 * @param {string} dist
 */
function withModuleUrls(text, file, dist) {
  return text.replace(new RegExp(`${PLACEHOLDER}\\("([^"]+)"\\)`, 'g'), (_, path) => {
    let rel = relative(dirname(file), join(dist, path)).split(sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
  });
}

/** All `.js` files under `dir` (relative paths), the studio page's files left out. */
function emittedModules(dir) {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.js') && f.split(sep)[0] !== 'studio-ui',
  );
}

/**
 * Bundles the entry points of the package in `packageDir` (its `package.json` beside `dist/`,
 * after `tsc`), and `internal` ones (paths under `dist/`), and replaces `tsc`'s `.js` files in
 * `dist/` with the bundles and their chunks.
 * @param {string} packageDir
 * @param {readonly string[]} [internal]
 * @returns {Promise<{ entries: string[], files: string[] }>} the entries and the files written,
 *   relative to `dist/`
 */
export async function bundleEntries(packageDir, internal = INTERNAL_ENTRIES) {
  // esbuild names modules by their real paths; so does this, for the same names (and chunk
  // hashes) wherever the folder is and however it is reached
  const root = realpathSync(resolve(packageDir));
  const dist = join(root, 'dist');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const entries = [...new Set([...entryFiles(pkg), ...internal])].sort();
  const result = await build({
    absWorkingDir: root, // the `// dist/<path>.js` comments are relative to it
    entryPoints: entries.map((e) => `dist/${e}`),
    outdir: 'dist',
    outbase: 'dist',
    entryNames: '[dir]/[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    write: false,
    allowOverwrite: true,
    logLevel: 'warning',
    plugins: [ownModuleUrl(dist)],
  });
  for (const file of emittedModules(dist)) rmSync(join(dist, file));
  const files = [];
  for (const out of result.outputFiles) {
    mkdirSync(dirname(out.path), { recursive: true });
    writeFileSync(out.path, withModuleUrls(out.text, out.path, dist));
    files.push(relative(dist, out.path).split(sep).join('/'));
  }
  return { entries, files: files.sort() };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const { entries, files } = await bundleEntries(dir);
  process.stdout.write(
    `bundled ${entries.length} entry points into ${files.length} files of dist/\n`,
  );
}
