#!/usr/bin/env node
// How deep a folder's imports stack, counted the way a reader climbs them: at each level of a
// folder, its files and its sub-folders (each taken as one room) are the steps, and the figure
// of the level is its longest import chain of steps, type-only and dynamic imports included.
// The figure of the folder is the largest over itself and every sub-folder below it.
//
//   node scripts/import-depth.mjs src/mcp             (from the repository root)
//   node scripts/import-depth.mjs src/mcp --cwd DIR   (another tree, e.g. a planted one)
//   node scripts/import-depth.mjs src/mcp --files     (also the chain with every room opened)
//
// Reads `depcruise <folder> --output-type json` with the project's configuration. Tests beside
// the code (`*.test.ts`) are not part of the library and are left out. Exits 1 on an import
// cycle between steps (no longest chain exists) or when depcruise cannot run.
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { promisify } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.mjs');

/**
 * The longest chain through `graph` (node -> nodes it imports), counted in nodes.
 * @param {ReadonlyMap<string, Iterable<string>>} graph
 * @returns {string[]}
 */
export function longestChain(graph) {
  /** @type {Map<string, string[]>} */
  const done = new Map();
  const open = new Set();
  /** @param {string} node @returns {string[]} */
  const from = (node) => {
    const known = done.get(node);
    if (known) return known;
    if (open.has(node)) throw new Error(`import cycle through ${node}`);
    open.add(node);
    let best = [node];
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      const tail = from(next);
      if (tail.length + 1 > best.length) best = [node, ...tail];
    }
    open.delete(node);
    done.set(node, best);
    return best;
  };
  let longest = [];
  for (const node of [...graph.keys()].sort()) {
    const chain = from(node);
    if (chain.length > longest.length) longest = chain;
  }
  return longest;
}

/**
 * The steps of `level` (a folder path ending in `/`) and their imports: every file under it
 * becomes its own name when it sits directly in `level`, else its sub-folder's (`name/`).
 * @param {ReadonlyArray<{ source: string; imports: readonly string[] }>} files
 * @param {string} level
 */
export function levelGraph(files, level) {
  const step = (/** @type {string} */ path) => {
    const rest = path.slice(level.length);
    const slash = rest.indexOf('/');
    return slash < 0 ? rest : rest.slice(0, slash + 1);
  };
  /** @type {Map<string, Set<string>>} */
  const graph = new Map();
  for (const f of files) {
    if (!f.source.startsWith(level)) continue;
    const from = step(f.source);
    const edges = graph.get(from) ?? new Set();
    graph.set(from, edges);
    for (const to of f.imports) if (to.startsWith(level) && step(to) !== from) edges.add(step(to));
  }
  return graph;
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

/**
 * The chain of every level of `folder`, deepest first.
 * @param {ReadonlyArray<{ source: string; imports: readonly string[] }>} files
 * @param {string} folder
 */
export function levelChains(files, folder) {
  const top = folder.replace(/\/+$/, '') + '/';
  const levels = new Set([top]);
  for (const f of files)
    for (let at = f.source.indexOf('/', top.length); at >= 0; at = f.source.indexOf('/', at + 1))
      levels.add(f.source.slice(0, at + 1));
  return [...levels]
    .map((level) => {
      try {
        return { level, chain: longestChain(levelGraph(files, level)) };
      } catch (err) {
        throw new Error(`${level}: ${err instanceof Error ? err.message : String(err)}`);
      }
    })
    .sort((a, b) => b.chain.length - a.chain.length || a.level.localeCompare(b.level));
}

async function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--cwd');
  const cwd = at >= 0 ? resolve(args[at + 1] ?? '.') : process.cwd();
  if (at >= 0) args.splice(at, 2);
  const files = args.indexOf('--files');
  if (files >= 0) args.splice(files, 1);
  if (!args[0] || args.length !== 1) {
    process.stderr.write('usage: node scripts/import-depth.mjs <folder> [--cwd DIR] [--files]\n');
    process.exit(2);
  }
  // as depcruise names files: relative to where it runs, with forward slashes
  const folder = relative(cwd, resolve(cwd, args[0])).split('\\').join('/');
  const modules = existsSync(resolve(cwd, folder)) ? await folderImports(folder, cwd) : [];
  if (modules.length === 0) throw new Error(`no file under ${folder} (from ${cwd})`);
  const levels = levelChains(modules, folder);
  const out = [`longest import chain in ${folder}: ${levels[0]?.chain.length ?? 0}`];
  for (const { level, chain } of levels)
    out.push(`  ${level} (${chain.length}): ${chain.join(' -> ')}`);
  if (files >= 0) {
    const all = longestChain(new Map(modules.map((m) => [m.source, m.imports])));
    out.push(`every room opened (${all.length} files): ${all.join(' -> ')}`);
  }
  process.stdout.write(out.join('\n') + '\n');
}

if (
  process.argv[1] &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
