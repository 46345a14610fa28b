/**
 * TypeScript fixtures that tests run as processes of their own, made runnable by plain Node:
 * the script and the repository sources it imports are bundled by esbuild into one ES module
 * (packages stay imports; scripts/bundle-script.mjs), once per test process and state of
 * the sources. Loading one module takes about a third of the CPU time that a TypeScript loader
 * (`--import tsx`) spends on the same sources file by file, and these fixtures start many
 * times per suite.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ROOT } from '../package/built-package.js';

const bundles = new Map<string, string>();
const BUNDLER = join(ROOT, 'scripts', 'bundle-script.mjs');

/**
 * The path of a plain ES module that runs `script` (a `.ts` or `.mts` file, absolute or
 * relative to the repository root) as `node --import tsx <script>` would.
 */
export function runnableScript(script: string): string {
  const path = resolve(ROOT, script);
  const known = bundles.get(path);
  if (known !== undefined && existsSync(known)) return known;
  const cache = join(ROOT, 'node_modules', '.cache', 'muster-test-scripts');
  mkdirSync(cache, { recursive: true });
  const name = basename(path).replace(/\.m?ts$/, '');
  const aside = join(cache, `${name}.${process.pid}.${bundles.size}.tmp.mjs`);
  execFileSync(process.execPath, [BUNDLER, path, aside], { stdio: 'pipe' });
  const hash = createHash('sha256').update(readFileSync(aside)).digest('hex').slice(0, 16);
  const out = join(cache, `${name}-${hash}.mjs`);
  // renamed into place: a process running it never sees half a file
  if (existsSync(out)) rmSync(aside, { force: true });
  else renameSync(aside, out);
  bundles.set(path, out);
  return out;
}
