import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The package built with the real build config (no source maps) into a folder under
 * `node_modules/.cache` (so its dependencies resolve as they would for a consumer), with its
 * `package.json` beside `dist/`; returns that folder. It is built once per state of the sources
 * (a hash of `src/`, the tsconfigs, `package.json` and the compiler's version) and shared by
 * every test file and suite that runs the package as it ships; treat it as read-only. Two
 * files starting at once may both build; the first to finish wins, atomically.
 */
export function buildPackage(): { dir: string } {
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = join(cache, `built-package-${sourceKey()}`);
  if (existsSync(dir)) return { dir };
  const building = mkdtempSync(join(cache, 'building-package-'));
  try {
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        join(ROOT, 'tsconfig.build.json'),
        '--outDir',
        join(building, 'dist'),
        '--sourceMap',
        'false',
      ],
      { cwd: ROOT, stdio: 'pipe' },
    );
    copyFileSync(join(ROOT, 'package.json'), join(building, 'package.json'));
    renameSync(building, dir);
  } catch (err) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(dir)) throw err; // else another file built the same sources first
  }
  pruneOtherBuilds(cache, dir);
  return { dir };
}

/** A hash of everything the build reads: the sources, the configs, and the compiler. */
function sourceKey(): string {
  const hash = createHash('sha256');
  const src = join(ROOT, 'src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .sort();
  for (const f of files)
    hash
      .update(f)
      .update('\0')
      .update(readFileSync(join(src, f)))
      .update('\0');
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package.json'])
    hash.update(f).update(readFileSync(join(ROOT, f)));
  hash.update(ts.version);
  return hash.digest('hex').slice(0, 16);
}

/** Removes builds of other source states left for more than an hour (earlier runs'). */
function pruneOtherBuilds(cache: string, keep: string): void {
  const hourAgo = Date.now() - 3_600_000;
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    if (path === keep || !/^(built|building)-package-/.test(name)) continue;
    try {
      if (statSync(path).mtimeMs < hourAgo) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed by another file meanwhile
    }
  }
}

/** The package's entry points: subpath -> built JS file and its declarations. */
export function entryPoints(dir: string): { subpath: string; js: string; dts: string }[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types?: string; import?: string }>;
  };
  return Object.entries(pkg.exports).flatMap(([subpath, target]) =>
    typeof target === 'object' && target.import && target.types
      ? [{ subpath, js: join(dir, target.import), dts: join(dir, target.types) }]
      : [],
  );
}

/**
 * Runs `script` (an ES module body) in a fresh Node process that records every module it
 * resolves; returns those URLs.
 */
export function modulesLoadedBy(script: string, dir: string): string[] {
  const log = join(dir, `loads-${process.hrtime.bigint()}.log`);
  execFileSync(
    process.execPath,
    [
      '--import',
      join(ROOT, 'test/fixtures/package/record-loads.mjs'),
      '--input-type=module',
      '-e',
      script,
    ],
    { cwd: dir, env: { ...process.env, MUSTER_LOAD_LOG: log }, stdio: 'pipe' },
  );
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    // nothing resolved
  }
  return text.split('\n').filter(Boolean);
}
