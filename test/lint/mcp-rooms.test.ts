import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.mjs');
const DEPTH = join(ROOT, 'scripts/import-depth.mjs');

const TSCONFIG = JSON.stringify({
  compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
  include: ['src'],
});

/** `from` imports each of `to` (paths relative to `from`'s folder). */
const importing = (...to: string[]) =>
  to.map((p, i) => `import { v as v${i} } from '${p}';`).join('\n') + '\nexport const v = 1;\n';

/**
 * A planted src/mcp: imports that keep the one-way order of the rooms, and three that break
 * it (upward between rooms, a room reaching the root's entry class, a room with no rule).
 */
const ROOMS: Record<string, string> = {
  'tsconfig.json': TSCONFIG,
  'src/mcp/index.ts': importing('./mcp-client-manager.js'),
  'src/mcp/mcp-client-manager.ts': importing(
    './operations/ops.js',
    './contracts/types.js',
    './stray/quiet.js',
  ),
  'src/mcp/mcp-facade.ts': 'export const v = 1;\n',
  'src/mcp/operations/ops.ts': importing('./helper.js', '../connection/conn.js'),
  'src/mcp/operations/helper.ts': 'export const v = 1;\n',
  // downward through every floor, and straight to the bottom rooms
  'src/mcp/connection/conn.ts': importing(
    '../handlers/handler.js',
    '../contracts/types.js',
    '../failures/facts.js',
  ),
  'src/mcp/handlers/handler.ts': importing('../client/link.js'),
  'src/mcp/client/link.ts': importing('../config/conf.js', '../servers/sdk.js'),
  'src/mcp/config/conf.ts': importing('../transports/pipe.js'),
  'src/mcp/transports/pipe.ts': importing('../contracts/types.js'),
  'src/mcp/contracts/types.ts': importing('../failures/facts.js', '../servers/sdk.js'),
  'src/mcp/failures/facts.ts': 'export const v = 1;\n',
  'src/mcp/servers/sdk.ts': 'export const v = 1;\n',
  // upward: a contract that reaches up into the connection room
  'src/mcp/contracts/upward.ts': importing('../connection/conn.js'),
  // sideways on the bottom floor: failures and servers do not import each other
  'src/mcp/failures/sideways.ts': importing('../servers/sdk.js'),
  // a room that imports the facade at the root
  'src/mcp/handlers/root-reach.ts': importing('../mcp-facade.js'),
  // rooms the order does not know: one with an import, one that is only imported
  'src/mcp/stray/thing.ts': importing('../contracts/types.js'),
  'src/mcp/stray/quiet.ts': 'export const v = 1;\n',
};

/**
 * A planted folder whose longest chain is 5 files (a b c d e), with a room of 3 files below
 * it: at the folder's level the room is one step (a b c room: 4); opened, it is the longest
 * chain (a b c x y z: 6).
 */
const DEPTH_TREE: Record<string, string> = {
  'tsconfig.json': TSCONFIG,
  'src/deep/a.ts': importing('./b.js', './e.js'),
  'src/deep/b.ts': importing('./c.js'),
  'src/deep/c.ts': importing('./d.js', './room/x.js'),
  'src/deep/d.ts': importing('./e.js'),
  'src/deep/e.ts': 'export const v = 1;\n',
  'src/deep/room/x.ts': importing('./y.js'),
  'src/deep/room/y.ts': importing('./z.js'),
  'src/deep/room/z.ts': 'export const v = 1;\n',
  'src/deep/a.test.ts': importing('./a.js'),
};

const dirs: string[] = [];
function plant(tree: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'muster-rooms-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs a node script in `cwd`; resolves with its exit code and output, whatever the code. */
function node(
  cwd: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, args, { cwd, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? -1,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? '',
    }),
  );
}

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

describe('the rooms of src/mcp (npm run lint)', () => {
  let found: string[] = [];
  let lint = { code: 0, stdout: '', stderr: '' };
  beforeAll(async () => {
    const dir = plant(ROOMS);
    lint = await node(dir, CLI, 'src', '--config', CONFIG);
    const json = await node(dir, CLI, 'src', '--config', CONFIG, '--output-type', 'json');
    const result = JSON.parse(json.stdout) as {
      summary: { violations: Violation[]; totalCruised: number };
    };
    // every file of the tree was cruised, so no rule passes for want of input
    expect(result.summary.totalCruised).toBe(Object.keys(ROOMS).length - 1);
    found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
  });

  it('report upward and same-floor imports, a room reaching the root and unknown rooms, each under its rule', () => {
    expect(found).toEqual(
      [
        'mcp-contracts-imports-only-failures-servers: src/mcp/contracts/upward.ts -> src/mcp/connection/conn.ts',
        'mcp-failures-imports-only-itself: src/mcp/failures/sideways.ts -> src/mcp/servers/sdk.ts',
        'mcp-rooms-not-root: src/mcp/handlers/root-reach.ts -> src/mcp/mcp-facade.ts',
        'mcp-rooms-known: src/mcp/stray/thing.ts -> src/mcp/contracts/types.ts',
        'mcp-rooms-known-imported: src/mcp/mcp-client-manager.ts -> src/mcp/stray/quiet.ts',
      ].sort(),
    );
    expect(lint.code).toBe(found.length);
    expect(lint.stdout).toContain('error mcp-rooms-not-root: src/mcp/handlers/root-reach.ts');
  });

  it('let sideways-down imports pass', () => {
    const downward = [
      'src/mcp/connection/conn.ts',
      'src/mcp/handlers/handler.ts',
      'src/mcp/client/link.ts',
      'src/mcp/config/conf.ts',
      'src/mcp/transports/pipe.ts',
      'src/mcp/contracts/types.ts',
      'src/mcp/operations/ops.ts',
    ];
    for (const file of downward) expect(found.join('\n')).not.toContain(`${file} ->`);
  });

  it('have a rule for every room of the real src/mcp, and none for a room it lacks', async () => {
    const config = (await import(pathToFileURL(CONFIG).href)) as {
      default: { forbidden: { name: string }[] };
    };
    const ruled = config.default.forbidden
      .map((r) => /^mcp-([a-z]+)-imports-only-/.exec(r.name)?.[1])
      .filter((room) => room !== undefined)
      .sort();
    const rooms = readdirSync(join(ROOT, 'src/mcp'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(ruled).toEqual(rooms);
  });
});

describe('scripts/import-depth.mjs', () => {
  it('finds the known chain of 5 files, a room taken as one step, and the room inside', async () => {
    const dir = plant(DEPTH_TREE);
    const out = await node(ROOT, DEPTH, 'src/deep', '--cwd', dir, '--files');
    expect(out.code).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines[0]).toBe('longest import chain in src/deep: 5');
    expect(lines).toContain('  src/deep/ (5): a.ts -> b.ts -> c.ts -> d.ts -> e.ts');
    expect(lines).toContain('  src/deep/room/ (3): x.ts -> y.ts -> z.ts');
    expect(lines.at(-2)).toBe(
      'every room opened (6 files): ' +
        ['a', 'b', 'c', 'room/x', 'room/y', 'room/z'].map((f) => `src/deep/${f}.ts`).join(' -> '),
    );
    // the same folder named another way is the same folder
    const again = await node(ROOT, DEPTH, './src/deep/', '--cwd', dir);
    expect(again.stdout.split('\n')[0]).toBe('longest import chain in src/deep: 5');
  });

  it('refuses a folder that holds no file', async () => {
    const dir = plant(DEPTH_TREE);
    const out = await node(ROOT, DEPTH, 'src/nowhere', '--cwd', dir);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('no file under src/nowhere');
  });

  it('refuses a folder with an import cycle', async () => {
    const dir = plant({
      'tsconfig.json': TSCONFIG,
      'src/loop/a.ts': importing('./b.js'),
      'src/loop/b.ts': importing('./a.js'),
    });
    const out = await node(ROOT, DEPTH, 'src/loop', '--cwd', dir);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^src\/loop\/: import cycle through [ab]\.ts$/m);
  });
});
