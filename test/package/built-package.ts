import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { distIsCurrent, sourceKey } from '../../scripts/build-stamp.mjs';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The package as it ships, for the tests that run it: the repository itself when `dist/` is a
 * finished `npm run build` of the current sources (its stamp says so; `.ci/run` builds before
 * the tests), else the package built with the real build config (`tsconfig.build.json`: no
 * source maps) and bundled as `npm run build` bundles it (scripts/bundle-entries.mjs), into a
 * folder under `node_modules/.cache` (so its dependencies resolve as they would for a consumer), with its `package.json` beside `dist/`. Either way the folder holds
 * `package.json` beside `dist/`; returns it. The cached build is made once per state of the
 * sources (the build stamp's key) and shared by every test file and suite; treat it as
 * read-only. The first file to need it builds it under a lock while the others wait; the
 * finished folder is renamed into place, so nobody sees a half-built one.
 */
export function buildPackage(): { dir: string } {
  if (distIsCurrent(ROOT)) return { dir: ROOT };
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = join(cache, `built-package-${sourceKey(ROOT)}`);
  const lock = `${dir}.lock`;
  // one file builds, the others wait for its folder (a lock older than 5 minutes was left by
  // a process that died, and is taken over)
  for (;;) {
    if (existsSync(dir)) {
      const now = new Date();
      utimesSync(dir, now, now); // in use: not pruned by a run on other sources
      return { dir };
    }
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (lockAgeMs(lock) > 300_000) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
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
      ],
      { cwd: ROOT, stdio: 'pipe' },
    );
    copyFileSync(join(ROOT, 'package.json'), join(building, 'package.json'));
    execFileSync(process.execPath, [join(ROOT, 'scripts/bundle-entries.mjs'), building], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    renameSync(building, dir);
  } finally {
    rmSync(building, { recursive: true, force: true });
    rmSync(lock, { recursive: true, force: true });
  }
  pruneOtherBuilds(cache, dir);
  return { dir };
}

function lockAgeMs(lock: string): number {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return 0; // released meanwhile
  }
}

/**
 * Removes builds of other source states unused for a day (every use touches a build), moving
 * each aside first so that no run ever sees a half-removed folder.
 */
function pruneOtherBuilds(cache: string, keep: string): void {
  const dayAgo = Date.now() - 86_400_000;
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    if (path === keep || !/^built-package-[0-9a-f]{16}$/.test(name)) continue;
    try {
      if (statSync(path).mtimeMs >= dayAgo) continue;
      const aside = join(cache, `pruning-package-${process.pid}-${name}`);
      renameSync(path, aside);
      rmSync(aside, { recursive: true, force: true });
    } catch {
      // in use again, or pruned by another file meanwhile
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
 * The names each entry point of the package in `dir` exports, from its built declarations:
 * subpath -> sorted names, a type-only export as `<name> (type)`.
 */
export function entryExports(dir: string): Record<string, string[]> {
  const entries = entryPoints(dir);
  const program = ts.createProgram(
    entries.map((e) => e.dts),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
      skipLibCheck: true,
    },
  );
  const checker = program.getTypeChecker();
  const api: Record<string, string[]> = {};
  for (const entry of entries) {
    const file = program.getSourceFile(entry.dts)!;
    const moduleSymbol = checker.getSymbolAtLocation(file)!;
    api[entry.subpath] = checker
      .getExportsOfModule(moduleSymbol)
      .map((s) => {
        const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
        const value = (target.flags & ts.SymbolFlags.Value) !== 0;
        return `${s.name}${value ? '' : ' (type)'}`;
      })
      .sort();
  }
  return api;
}

/**
 * Runs `script` (an ES module body) in a fresh Node process that records every module it
 * resolves; returns those URLs, and for each file of the package's bundled `dist/` among them,
 * the URLs its modules had before bundling (`.../dist/agent/agent.js`), read from the
 * `// dist/<path>.js` comment esbuild puts before each module it bundles.
 */
export function modulesLoadedBy(script: string, dir: string): string[] {
  const log = join(tmpdir(), `muster-loads-${process.pid}-${process.hrtime.bigint()}.log`);
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
  rmSync(log, { force: true });
  const urls = text.split('\n').filter(Boolean);
  return [...urls, ...urls.flatMap((url) => bundledModules(url, dir))];
}

/**
 * The modules bundled into the file at `url` when it is a `.js` file of `dir/dist`, as the
 * URLs they had in `tsc`'s `dist/`; none for any other URL. (URLs as Node.js records them:
 * symbolic links resolved.)
 */
export function bundledModules(url: string, dir: string): string[] {
  const dist = pathToFileURL(realpathSync(join(dir, 'dist'))).href;
  if (!url.startsWith(`${dist}/`) || !url.endsWith('.js')) return [];
  return [...readFileSync(fileURLToPath(url), 'utf8').matchAll(/^\/\/ dist\/(\S+\.js)$/gm)].map(
    (m) => `${dist}/${m[1]}`,
  );
}
