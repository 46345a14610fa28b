#!/usr/bin/env node
// The longest file-to-file import chain inside one folder, type-only imports included, as
// dependency-cruiser sees it with the project's own configuration.
//
//   node scripts/import-depth.mjs src/mcp            (from the repository root)
//   node scripts/import-depth.mjs src/mcp --cwd DIR  (another tree, e.g. a planted one)
//
// Prints the length (files on the chain) and the chain itself; exits 1 when the folder holds
// an import cycle (no longest chain exists) or depcruise cannot run. Tests beside the code
// (`*.test.ts`) are not part of the library and are left out.
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.mjs');

/**
 * The longest chain of imports between the files of `modules` (each `{ source, imports }`),
 * counted in files. Throws on a cycle.
 * @param {ReadonlyArray<{ source: string; imports: readonly string[] }>} modules
 * @returns {string[]}
 */
export function longestChain(modules) {
  const graph = new Map(modules.map((m) => [m.source, m.imports]));
  /** @type {Map<string, string[]>} */
  const done = new Map();
  const open = new Set();
  /** @param {string} file @returns {string[]} */
  const from = (file) => {
    const known = done.get(file);
    if (known) return known;
    if (open.has(file)) throw new Error(`import cycle through ${file}`);
    open.add(file);
    let best = [file];
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      const tail = from(next);
      if (tail.length + 1 > best.length) best = [file, ...tail];
    }
    open.delete(file);
    done.set(file, best);
    return best;
  };
  let longest = [];
  for (const file of [...graph.keys()].sort()) {
    const chain = from(file);
    if (chain.length > longest.length) longest = chain;
  }
  return longest;
}

/**
 * Runs depcruise over `folder` (relative to `cwd`) and returns its files with their imports
 * inside the folder.
 * @param {string} folder
 * @param {string} cwd
 */
export async function folderImports(folder, cwd) {
  const run = promisify(execFile);
  const out = await run(
    process.execPath,
    [CLI, folder, '--config', CONFIG, '--output-type', 'json'],
    { cwd, maxBuffer: 256 * 1024 * 1024 },
  ).then(
    (r) => r.stdout,
    // depcruise exits non-zero when a rule is broken; its JSON is still whole
    (/** @type {{ stdout?: string; message: string }} */ err) => {
      if (!err.stdout) throw new Error(`depcruise failed: ${err.message}`);
      return err.stdout;
    },
  );
  const prefix = folder.replace(/\/+$/, '') + '/';
  const inside = (/** @type {string} */ p) => p.startsWith(prefix) && !p.endsWith('.test.ts');
  /** @type {{ modules: { source: string; dependencies: { resolved: string }[] }[] }} */
  const result = JSON.parse(out);
  return result.modules
    .filter((m) => inside(m.source))
    .map((m) => ({
      source: m.source,
      imports: [...new Set(m.dependencies.map((d) => d.resolved).filter(inside))],
    }));
}

async function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--cwd');
  const cwd = at >= 0 ? resolve(args[at + 1] ?? '.') : process.cwd();
  if (at >= 0) args.splice(at, 2);
  const folder = args[0];
  if (!folder || args.length !== 1) {
    process.stderr.write('usage: node scripts/import-depth.mjs <folder> [--cwd DIR]\n');
    process.exit(2);
  }
  const modules = await folderImports(folder, cwd);
  const chain = longestChain(modules);
  process.stdout.write(
    `longest import chain in ${folder}: ${chain.length} files (${modules.length} files in all)\n`,
  );
  for (const [i, file] of chain.entries()) process.stdout.write(`${i === 0 ? '   ' : '-> '}${file}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
