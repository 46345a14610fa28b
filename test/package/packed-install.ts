import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './built-package.js';

// A packed package installed as a user installs it, in an empty folder, with nothing
// downloaded. `npm install --offline <tarball>` cannot do it: it needs each dependency's
// registry document (to pick a version for a range), and `npm ci` caches only the tarballs it
// installs, by integrity. So the folder gets a lockfile first, as a resolver would write it:
// the tarball's declared dependencies (and required peers), each resolved the way Node.js
// finds a package, through this repository's package-lock.json (its versions and integrity).
// `npm ci --offline` then installs that from the npm cache, and `npm ls --all` confirms that
// every package's declared dependencies are met by what was installed.

/** One entry of a lockfile's `packages`. */
interface LockEntry {
  readonly version?: string;
  readonly link?: boolean;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { optional?: boolean }>>;
  readonly [key: string]: unknown;
}

type Lock = Readonly<Record<string, LockEntry>>;

/** A package.json, as far as installing reads it. */
export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { optional?: boolean }>>;
  readonly [key: string]: unknown;
}

/** This repository's package-lock.json `packages`. */
export function repositoryLock(): Lock {
  return (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Lock })
    .packages;
}

/** The names a package needs installed: its dependencies, optional ones, and required peers. */
function needs(entry: LockEntry | Manifest): { name: string; optional: boolean }[] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter(
    (name) => entry.peerDependenciesMeta?.[name]?.optional !== true,
  );
  return [
    ...[...Object.keys(entry.dependencies ?? {}), ...peers].map((name) => ({
      name,
      optional: false,
    })),
    ...Object.keys(entry.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
  ];
}

/** Where `name` resolves from the package at lockfile path `from` (Node.js's walk up). */
function resolveIn(lock: Lock, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (lock[candidate] !== undefined && lock[candidate].link !== true) return candidate;
    if (base === '') return undefined;
    const up = base.lastIndexOf('/node_modules/');
    base = up < 0 ? '' : base.slice(0, up);
  }
}

/**
 * The lockfile paths of every package that `names`, needed by the package at `from`, bring in,
 * transitively; `provided` names (the tarballs themselves) are left out.
 */
export function lockClosure(
  lock: Lock,
  from: string,
  names: readonly string[],
  provided: readonly string[] = [],
): Set<string> {
  const found = new Set<string>();
  const queue = names.map((name) => ({ from, name, optional: false }));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (provided.includes(next.name)) continue;
    const path = resolveIn(lock, next.from, next.name);
    if (path === undefined) {
      if (next.optional) continue;
      throw new Error(`${next.name} (needed from '${next.from}') is not in package-lock.json`);
    }
    if (!path.startsWith('node_modules/'))
      throw new Error(`${path}: a package installed only under a workspace`);
    if (found.has(path)) continue;
    found.add(path);
    for (const need of needs(lock[path]!)) queue.push({ from: path, ...need });
  }
  return found;
}

/** A packed package: its tarball and the package.json inside it. */
export interface Packed {
  readonly tarball: string;
  readonly manifest: Manifest;
}

/** `npm pack` of the package in `dir` into `into`; returns the tarball and its manifest. */
export function pack(dir: string, into: string): Packed {
  mkdirSync(into, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', into], {
    cwd: dir,
    env: npmEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [{ filename }] = JSON.parse(out) as [{ filename: string }];
  return {
    tarball: join(into, filename),
    manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest,
  };
}

/** The files `npm pack` of the package in `dir` would ship, relative to the package. */
export function packedFiles(dir: string): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json'], {
    cwd: dir,
    env: npmEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [{ files }] = JSON.parse(out) as [{ files: { path: string }[] }];
  return files.map((f) => f.path);
}

/**
 * Installs `wanted` (the folder's own dependencies) and `alongside` (tarballs that the wanted
 * ones depend on, as a registry would serve them) into `app`, an empty folder, offline.
 * Returns the lockfile paths it installed besides the tarballs.
 */
export async function installPacked(
  app: string,
  wanted: readonly Packed[],
  alongside: readonly Packed[] = [],
): Promise<Set<string>> {
  const lock = repositoryLock();
  const tarballs = [...wanted, ...alongside];
  const provided = tarballs.map((p) => p.manifest.name);
  const closure = new Set<string>();
  for (const { manifest } of tarballs) {
    // a package of this repository resolves as it does here: the library from the root, the
    // CLI from its workspace folder
    const from = manifest.name === lockName(lock) ? '' : workspaceOf(lock, manifest.name);
    for (const path of lockClosure(
      lock,
      from,
      needs(manifest).map((n) => n.name),
      provided,
    ))
      closure.add(path);
  }
  const packages: Record<string, unknown> = {
    '': {
      name: 'app',
      version: '1.0.0',
      dependencies: Object.fromEntries(wanted.map((p) => [p.manifest.name, fileSpec(app, p)])),
    },
  };
  for (const p of tarballs) {
    const { name: _name, ...fields } = p.manifest;
    packages[`node_modules/${p.manifest.name}`] = {
      version: p.manifest.version,
      resolved: fileSpec(app, p),
      integrity: `sha512-${createHash('sha512').update(readFileSync(p.tarball)).digest('base64')}`,
      ...pick(fields, [
        'license',
        'dependencies',
        'optionalDependencies',
        'peerDependencies',
        'peerDependenciesMeta',
        'bin',
        'engines',
      ]),
    };
  }
  for (const path of [...closure].sort()) {
    const { dev: _d, devOptional: _o, peer: _p, optional: _q, ...entry } = lock[path]!;
    packages[path] = entry;
  }
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: (packages[''] as { dependencies: unknown }).dependencies }, null, 2)}\n`,
  );
  writeFileSync(
    join(app, 'package-lock.json'),
    `${JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
  await npm(app, ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund']);
  return closure;
}

/**
 * What is installed in `app`, as lockfile-style paths (`node_modules/a/node_modules/b`), from
 * `npm ls --all --parseable`, which fails when a declared dependency is missing or invalid.
 */
export async function installedPaths(app: string): Promise<string[]> {
  const out = await npm(app, ['ls', '--all', '--parseable']);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => relative(app, line).split('\\').join('/'))
    .filter((path) => path !== '')
    .sort();
}

/** The bytes of the files under `dir` (what `du --apparent-size` counts), links not followed. */
export function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(path);
    else if (entry.isFile()) total += lstatSync(path).size;
  }
  return total;
}

function lockName(lock: Lock): unknown {
  return lock['']?.['name'];
}

function workspaceOf(lock: Lock, name: string): string {
  const path = Object.keys(lock).find(
    (p) => !p.includes('node_modules/') && lock[p]!['name'] === name,
  );
  if (path === undefined) throw new Error(`${name} is not a package of this repository`);
  return path;
}

function fileSpec(app: string, p: Packed): string {
  return `file:${relative(app, p.tarball).split('\\').join('/')}`;
}

function pick(from: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => from[k] !== undefined).map((k) => [k, from[k]]));
}

/**
 * The environment for npm: this one without what an outer `npm run` put in it (its script,
 * package and workspace settings), the cache and registry settings kept.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = /^npm_config_(cache|registry|userconfig|globalconfig)$/i;
  return {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || keep.test(key)),
    ),
    npm_config_update_notifier: 'false',
  };
}

function npm(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      [...args],
      { cwd, env: npmEnv(), encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${stderr}${stdout}`));
        else resolve(stdout);
      },
    );
  });
}
