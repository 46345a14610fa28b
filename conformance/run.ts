/**
 * `npm run conformance`: runs the official MCP conformance suite (client scenarios) against
 * conformance/client.ts, one scenario at a time, all on loopback. Prints one line per
 * scenario and `conformance: N passed, N failed, N skipped`. Scenarios listed in
 * expected-failures.json count as skipped; an unexpected failure, or a listed scenario that
 * passes (a stale entry), exits non-zero.
 *
 * The suite's command line needs Node 22: CONFORMANCE_NODE, or the binary that
 * `npm run conformance:setup` installs (conformance/setup.mjs, pinned), used for the suite only;
 * the client under test runs on this machine's Node. Nothing is downloaded while it runs.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  installedVersion,
  NODE22_BIN,
  NODE22_PREFIX,
  NODE_PACKAGE,
  NODE_VERSION,
} from './setup.mjs';
import { bundleScript } from '../scripts/bundle-script.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const cache = join(root, 'node_modules', '.cache', 'muster-conformance');
const SCENARIO_TIMEOUT_MS = 60_000;

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * A Node >= 22 for the suite: CONFORMANCE_NODE, or the binary `npm run conformance:setup`
 * installed (pinned there). Nothing is downloaded here: without it, the run stops and says so.
 */
function suiteNode(): string {
  const given = process.env['CONFORMANCE_NODE'];
  if (given) return given;
  const version = installedVersion();
  if (version !== NODE_VERSION) {
    process.stderr.write(
      `conformance: the suite needs Node 22: run \`npm run conformance:setup\` once (it installs ${NODE_PACKAGE}@${NODE_VERSION} into ${NODE22_PREFIX}), or set CONFORMANCE_NODE to a Node 22 binary\n`,
    );
    process.exit(2);
  }
  return NODE22_BIN;
}

function suiteCli(): string {
  const pkg = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/conformance/package.json',
  );
  return join(dirname(pkg), 'dist', 'index.js');
}

function clientScenarios(node: string, cli: string): string[] {
  const out = execFileSync(node, [cli, 'list', '--client'], { encoding: 'utf8' });
  return [...out.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
}

/**
 * conformance/client.ts and the Muster sources it imports, bundled once into one ES module
 * (packages stay imports): each scenario starts a client, and plain Node loads one file in a
 * third of the CPU time that a TypeScript loader takes for the sources one by one.
 */
async function bundleClient(): Promise<string> {
  const outfile = join(cache, 'client.mjs');
  await bundleScript(join(here, 'client.ts'), outfile);
  return outfile;
}

function runScenario(
  node: string,
  cli: string,
  client: string,
  scenario: string,
  logFile: string,
): Promise<{ passed: boolean; ms: number }> {
  const started = performance.now();
  // `exec` so that the suite's timeout reaches the client itself, not only its shell.
  const command = `exec ${process.execPath} ${client}`;
  return new Promise((resolve) => {
    const child = spawn(
      node,
      [
        cli,
        'client',
        '--command',
        command,
        '--scenario',
        scenario,
        '--timeout',
        String(SCENARIO_TIMEOUT_MS),
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => output.push(b));
    child.stderr.on('data', (b: Buffer) => output.push(b));
    const kill = setTimeout(() => child.kill('SIGKILL'), SCENARIO_TIMEOUT_MS * 2);
    child.on('close', (code) => {
      clearTimeout(kill);
      writeFileSync(logFile, Buffer.concat(output));
      resolve({ passed: code === 0, ms: performance.now() - started });
    });
  });
}

async function main(): Promise<number> {
  const expected = JSON.parse(readFileSync(join(here, 'expected-failures.json'), 'utf8')) as Record<
    string,
    string
  >;
  const node = suiteNode();
  const cli = suiteCli();
  // `npm run conformance -- <prefix>...` runs only the scenarios whose names start so
  const only = process.argv.slice(2);
  const all = clientScenarios(node, cli);
  const scenarios = all.filter(
    (name) => only.length === 0 || only.some((prefix) => name.startsWith(prefix)),
  );
  const logs = join(cache, 'logs');
  mkdirSync(logs, { recursive: true });
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const problems: string[] = [];
  const client = await bundleClient();
  for (const name of Object.keys(expected)) {
    if (!all.includes(name))
      problems.push(`expected-failures.json lists '${name}', which the suite does not have`);
  }
  for (const scenario of scenarios) {
    const log = join(logs, `${scenario.replace(/\W+/g, '_')}.log`);
    const { passed: ok, ms } = await runScenario(node, cli, client, scenario, log);
    const reason = expected[scenario];
    const time = `${(ms / 1000).toFixed(1)} s`;
    if (reason !== undefined && ok) {
      failed++;
      problems.push(
        `'${scenario}' passes but is listed as an expected failure: remove it from expected-failures.json`,
      );
      print(`STALE  ${scenario} (${time}) - passes; remove it from expected-failures.json`);
    } else if (reason !== undefined) {
      skipped++;
      print(`XFAIL  ${scenario} (${time}) - ${reason}`);
    } else if (ok) {
      passed++;
      print(`PASS   ${scenario} (${time})`);
    } else {
      failed++;
      problems.push(`'${scenario}' failed; its log: ${log}`);
      print(`FAIL   ${scenario} (${time}) - log: ${log}`);
    }
  }
  for (const p of problems) print(`problem: ${p}`);
  print(`conformance: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
