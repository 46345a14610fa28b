import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleEntries, entryFiles } from '../../scripts/bundle-entries.mjs';

// scripts/bundle-entries.mjs on a small package shaped like ours (`tsc` output in dist/): what
// `npm run build` does to dist/ after tsc. The real package is checked in entry-points.test.ts.

const scratch = mkdtempSync(join(tmpdir(), 'muster-bundle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PACKAGE = {
  name: 'fixture',
  type: 'module',
  exports: {
    '.': { types: './dist/index.d.ts', import: './dist/index.js', require: './dist/cjs.cjs' },
    './sub': { types: './dist/sub/entry.d.ts', import: './dist/sub/entry.js' },
    './package.json': './package.json',
  },
  bin: { fixture: './dist/sub/entry.js' },
};

const FILES: Record<string, string> = {
  'package.json': JSON.stringify(PACKAGE),
  // only the root uses `where.js`, so its code lands in dist/index.js, one folder up from it
  'dist/index.js': `export { Shared } from './shared/shared.js';
export { packageName } from './deep/where.js';
export const loadLazy = () => import('./lazy/lazy.js');
`,
  'dist/index.d.ts': 'export declare class Shared {}\n',
  'dist/sub/entry.js': `export { Shared } from '../shared/shared.js';\n`,
  // in a chunk (dist/chunks/): its folder is still dist/shared/
  'dist/shared/shared.js': `export class Shared {
  static folder = new URL('.', import.meta.url).href;
}
`,
  'dist/deep/where.js': `import { readFileSync } from 'node:fs';
export const packageName = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).name;
`,
  'dist/lazy/lazy.js': 'export const lazyValue = "loaded on demand";\n',
  'dist/studio-ui/assets/page.js': 'console.log("the studio page");\n',
};

/** Writes the fixture package into a new folder under the scratch folder; returns it. */
function fixture(name: string, extra: Record<string, string> = {}): string {
  const dir = join(scratch, name);
  for (const [path, text] of Object.entries({ ...FILES, ...extra })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Every file under `dir/dist`, path -> text. */
function contents(dir: string): Record<string, string> {
  const files = readdirSync(join(dir, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.includes('.'),
  );
  return Object.fromEntries(
    files.sort().map((f) => [f, readFileSync(join(dir, 'dist', f), 'utf8')] as const),
  );
}

describe('bundle-entries', () => {
  it('takes the entry points from exports (import targets) and bin', () => {
    expect(entryFiles(PACKAGE)).toEqual(['index.js', 'sub/entry.js']);
  });

  it('bundles each entry to its own path, shares modules through chunks and keeps import() lazy', async () => {
    const dir = fixture('shape');
    await bundleEntries(dir, []);
    const files = contents(dir);
    const js = Object.keys(files).filter((f) => f.endsWith('.js'));
    // tsc's modules are gone; the entries, one shared chunk and the lazy module's chunk remain
    expect(js.filter((f) => !f.startsWith('chunks/') && !f.startsWith('studio-ui/'))).toEqual([
      'index.js',
      'sub/entry.js',
    ]);
    expect(js.filter((f) => f.startsWith('chunks/'))).toHaveLength(2);
    expect(files['index.d.ts']).toBe(FILES['dist/index.d.ts']); // declarations untouched
    expect(files['studio-ui/assets/page.js']).toBe(FILES['dist/studio-ui/assets/page.js']);
    expect(files['index.js']).not.toContain('loaded on demand');
    expect(Object.values(files).filter((t) => t.includes('class Shared'))).toHaveLength(1);

    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const root = await import(${JSON.stringify(pathToFileURL(join(dir, 'dist/index.js')).href)});
         const sub = await import(${JSON.stringify(pathToFileURL(join(dir, 'dist/sub/entry.js')).href)});
         const lazy = await root.loadLazy();
         process.stdout.write(JSON.stringify([root.Shared === sub.Shared, root.packageName, lazy.lazyValue, root.Shared.folder]));`,
      ],
      { encoding: 'utf8' },
    );
    // the class is one object; where.js still reads ../../package.json from dist/deep/
    expect(JSON.parse(out)).toEqual([
      true,
      'fixture',
      'loaded on demand',
      `${pathToFileURL(join(dir, 'dist/shared')).href}/`,
    ]);
  });

  it('writes the same files wherever the package is and however its folder is reached', async () => {
    const first = fixture('one');
    const second = fixture('two/deeper');
    symlinkSync(second, join(scratch, 'link'));
    await bundleEntries(first, []);
    await bundleEntries(join(scratch, 'link'), []);
    expect(contents(second)).toEqual(contents(first));
    await bundleEntries(fixture('again'), []);
    expect(contents(join(scratch, 'again'))).toEqual(contents(first));
  });

  it('refuses a module that uses import.meta other than import.meta.url', async () => {
    const dir = fixture('dirname', {
      'dist/deep/where.js': 'export const packageName = import.meta.dirname;\n',
    });
    await expect(bundleEntries(dir, [])).rejects.toThrow(/only import\.meta\.url/);
    expect(existsSync(join(dir, 'dist/deep/where.js'))).toBe(true); // dist/ left as it was
  });
});
