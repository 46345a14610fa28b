import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Builds the package with the real build config into a fresh folder under
 * `node_modules/.cache` (so its dependencies resolve as they would for a consumer) and
 * returns that folder, which holds `dist/`.
 */
export function buildPackage(): { dir: string; cleanup: () => void } {
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'built-package-'));
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      join(dir, 'dist'),
      '--sourceMap',
      'false',
    ],
    { cwd: ROOT, stdio: 'pipe' },
  );
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
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
