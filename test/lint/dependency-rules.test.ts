import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.mjs');

/** A tiny src tree: allowed imports, plus one cycle and a few forbidden imports. */
const TREE: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
    include: ['src'],
  }),
  'src/errors/index.ts': 'export class Oops extends Error {}\n',
  'src/util/index.ts':
    "import { Oops } from '../errors/index.js';\nexport const fail = () => new Oops();\n",
  'src/policy/index.ts': [
    "import { fail } from '../util/index.js';",
    "import type { Name } from '../tools/index.js';",
    'export const deny = (n: Name) => fail() && n;',
  ].join('\n'),
  'src/tools/index.ts': "export type Name = string;\nexport { a } from './a.js';\n",
  'src/tools/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
  'src/tools/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
  'src/mcp/transports/pipe.ts': 'export const pipe = 1;\n',
  'src/mcp/index.ts': "export { pipe } from './transports/pipe.js';\n",
  'src/agent/index.ts': [
    "import type { Name } from '../tools/index.js';",
    "import { a } from '../tools/a.js';",
    "import { pipe } from '../mcp/index.js';",
    'export const go = (n: Name) => [a, pipe, n];',
  ].join('\n'),
  'src/model/index.ts': "import { pipe } from '../mcp/index.js';\nexport const m = pipe;\n",
  'src/auth/index.ts': [
    "import { fail } from '../util/index.js';",
    "import { pipe } from '../mcp/index.js';",
    'export const store = () => [fail, pipe];',
  ].join('\n'),
  'src/session/index.ts': 'export const s = 1;\n',
  // the query() facade may import the agent, but not the session folder
  'src/query/index.ts': [
    "import { go } from '../agent/index.js';",
    "import { s } from '../session/index.js';",
    'export const q = [go, s];',
  ].join('\n'),
  'src/index.ts': "export { go } from './agent/index.js';\n",
};

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

const dir = mkdtempSync(join(tmpdir(), 'muster-depcruise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs depcruise as `npm run lint` does, in `dir`; resolves with its exit code and output. */
async function depcruise(...extra: string[]): Promise<{ code: number; stdout: string }> {
  return run(process.execPath, [CLI, 'src', '--config', CONFIG, ...extra], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string }) => ({
      code: err.code ?? -1,
      stdout: err.stdout ?? '',
    }),
  );
}

describe('dependency rules (npm run lint)', () => {
  it('fail on a cycle, a forbidden import and a reach into another folder, and only on those', async () => {
    for (const [path, text] of Object.entries(TREE)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const [lint, json] = await Promise.all([depcruise(), depcruise('--output-type', 'json')]);
    const result = JSON.parse(json.stdout) as {
      summary: { violations: Violation[]; totalCruised: number };
    };
    // every file of the tree was cruised, so no rule passes for want of input
    expect(result.summary.totalCruised).toBe(Object.keys(TREE).length - 1);
    const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(found.sort()).toEqual(
      [
        'no-circular: src/tools/a.ts -> src/tools/b.ts',
        'policy-imports-only-errors-util: src/policy/index.ts -> src/tools/index.ts',
        'model-imports-only-errors-util: src/model/index.ts -> src/mcp/index.ts',
        'auth-imports-only-errors-util: src/auth/index.ts -> src/mcp/index.ts',
        'folder-internals-through-index: src/agent/index.ts -> src/tools/a.ts',
        'query-imports-only-agent-mcp-tools-policy-model-errors-util: src/query/index.ts -> src/session/index.ts',
      ].sort(),
    );
    // the lint run fails, with one error per violation
    expect(lint.code).toBe(found.length);
    expect(lint.stdout).toContain('error no-circular: src/tools/a.ts');
  }, 10_000);
});
