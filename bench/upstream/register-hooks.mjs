// Loaded with `node --import` by bench/upstream-gain.ts (its measurement processes and its
// test runs): registers resolve-hooks.mjs with the copies of the official client named in
// the environment. MUSTER_UPSTREAM_COPIES: JSON, tag -> package folder of a copy
// (`<root>/node_modules/@modelcontextprotocol/client`); the tag `single` is the client for
// untagged imports. MUSTER_UPSTREAM_ORIGINAL: the installed package's folder, from which
// the copies' own dependencies resolve.
import { register } from 'node:module';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const copies = process.env.MUSTER_UPSTREAM_COPIES;
const installed = process.env.MUSTER_UPSTREAM_ORIGINAL;
if (!copies || !installed) {
  throw new Error(
    'register-hooks: MUSTER_UPSTREAM_COPIES and MUSTER_UPSTREAM_ORIGINAL must be set',
  );
}
const folderURL = (/** @type {string} */ dir) => pathToFileURL(join(dir, '/')).href;
const copyURLs = Object.fromEntries(
  Object.entries(/** @type {Record<string, string>} */ (JSON.parse(copies))).map(([tag, dir]) => [
    tag,
    folderURL(dir),
  ]),
);
const repo = fileURLToPath(new URL('../../', import.meta.url));

register('./resolve-hooks.mjs', import.meta.url, {
  data: {
    original: folderURL(installed),
    copies: copyURLs,
    taggedRoots: [
      ...Object.values(copyURLs),
      folderURL(join(repo, 'dist')),
      folderURL(join(repo, 'bench/upstream')),
    ],
  },
});
