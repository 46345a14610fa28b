#!/usr/bin/env node
// Which state of the sources `dist/` was built from. `npm run build` clears the stamp (and
// `dist/`) first and writes it last, so a stamp is there only beside a finished build. Tests
// and suites that run the package as it ships use `dist/` itself when its stamp names the
// current sources, instead of building the same thing again.
//
//   node scripts/build-stamp.mjs clear   (removes dist/ and the stamp)
//   node scripts/build-stamp.mjs write   (records the current sources' key)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** Where the stamp lives, under `root` (in node_modules/.cache: never packed, never committed). */
export function stampPath(root) {
  return join(root, 'node_modules', '.cache', 'muster-build', 'source-key');
}

function sourceFiles(root, folder) {
  const dir = join(root, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|tsx|css|html|json)$/.test(f) && !/\.test\.ts$/.test(f))
    .sort()
    .map((f) => join(folder, f));
}

/**
 * A hash of everything the build reads: the library's and the studio page's sources, the
 * configs, the script that bundles the entry points, and the versions of the compiler and the
 * bundlers.
 */
export function sourceKey(root) {
  const hash = createHash('sha256');
  const files = [
    ...sourceFiles(root, 'src'),
    ...sourceFiles(root, 'studio-ui'),
    'tsconfig.json',
    'tsconfig.build.json',
    'package.json',
    'scripts/bundle-entries.mjs',
  ];
  for (const f of files)
    hash
      .update(f)
      .update('\0')
      .update(readFileSync(join(root, f)))
      .update('\0');
  for (const pkg of ['typescript', 'esbuild', 'vite'])
    hash
      .update(pkg)
      .update(JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')).version);
  return hash.digest('hex').slice(0, 16);
}

/** True when `root/dist` is a finished build of the sources as they are now. */
export function distIsCurrent(root) {
  try {
    return (
      existsSync(join(root, 'dist', 'index.js')) &&
      readFileSync(stampPath(root), 'utf8').trim() === sourceKey(root)
    );
  } catch {
    return false; // no stamp
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const command = process.argv[2];
  if (command === 'clear') {
    rmSync(stampPath(root), { force: true });
    rmSync(join(root, 'dist'), { recursive: true, force: true });
  } else if (command === 'write') {
    mkdirSync(dirname(stampPath(root)), { recursive: true });
    writeFileSync(stampPath(root), `${sourceKey(root)}\n`);
  } else {
    process.stderr.write('usage: node scripts/build-stamp.mjs clear|write\n');
    process.exitCode = 2;
  }
}
