// `node scripts/bundle-script.mjs <entry.ts> <out.mjs>` (or `bundleScript()`): bundles a
// TypeScript script and the repository sources it imports into one ES module (packages stay
// imports), for the test fixtures that run as processes (test/support/ts-script.ts) and the
// conformance client (conformance/run.ts). Each source keeps its own `import.meta.url` and
// `import.meta.dirname` (replaced by the source file's own values), so paths a fixture or a
// source resolves relative to itself still point where they did.
import { readFile } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const LOADERS = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
};

/** Bundles `entry` and the repository sources it imports into one ES module at `outfile`. */
export async function bundleScript(entry, outfile) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    plugins: [
      {
        name: 'own-import-meta',
        setup(b) {
          b.onLoad({ filter: /\.(m|c)?(t|j)sx?$/ }, async (args) => {
            const text = await readFile(args.path, 'utf8');
            const loader = LOADERS[extname(args.path)];
            if (!loader || !text.includes('import.meta')) return undefined;
            return {
              loader,
              contents: text
                .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
                .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path))),
            };
          });
        },
      },
    ],
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [entry, outfile] = process.argv.slice(2);
  await bundleScript(entry, outfile);
}
