/**
 * The `muster` command (docs/guide/cli.md), offline: declares server-everything (from
 * node_modules) in a project folder, calls one of its tools, and runs the agent with a
 * scripted model, each as a user would type it. Everything lives in a temporary folder
 * (the project, and MUSTER_HOME with its sessions file).
 *
 *   npx tsx examples/cli.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
const everything = resolve(dirname(manifest), Object.values(bin)[0]!);

const project = mkdtempSync(join(tmpdir(), 'muster-cli-'));
const env = { ...process.env, MUSTER_HOME: join(project, 'home'), NO_COLOR: '1' };
/** `muster <args>` in the project folder (in a clone: this repository's command, with tsx). */
function muster(...args: string[]): string {
  console.log(`$ muster ${args.map((a) => (/[\s"{*]/.test(a) ? `'${a}'` : a)).join(' ')}`);
  const main = join(import.meta.dirname, '../src/cli/main.ts');
  const argv = [...process.execArgv, main, ...args];
  return execFileSync(process.execPath, argv, { cwd: project, env, encoding: 'utf8' });
}

try {
  process.stdout.write(muster('mcp', 'add', 'everything', '--', process.execPath, everything));
  process.stdout.write(muster('mcp', 'call', 'everything', 'get-sum', '--args', '{"a":2,"b":40}'));

  const turns = [
    { toolCalls: [{ name: 'mcp__everything__get-sum', arguments: { a: 2, b: 40 } }] },
    { text: 'The sum is 42.' },
  ];
  writeFileSync(join(project, 'turns.json'), JSON.stringify(turns));
  const args = ['--model', 'scripted:turns.json', '--allow', 'mcp_connect:everything'];
  const result = muster('--json', 'run', 'Add 2 and 40.', ...args, '--allow', 'mcp__everything__*');
  const { status, text } = JSON.parse(result) as Record<string, string>;
  console.log(JSON.stringify({ status, text })); // --json prints the whole run: events, usage...
} finally {
  rmSync(project, { recursive: true, force: true });
}
