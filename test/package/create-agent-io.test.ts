import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage, entryPoints, ROOT } from './built-package.js';

// SPEC principles 6 and 7.1: constructing an agent validates everything and starts nothing.
// A fresh Node process with a recorder preloaded imports the built package, marks, creates an
// agent with every kind of MCP option, and reports what happened after the mark.

interface Activity {
  readonly kind: 'resolve' | 'load' | 'require' | 'spawn' | 'connect' | 'read' | 'write';
  readonly what: string;
}

let built: ReturnType<typeof buildPackage>;
let scratch: string;
beforeAll(() => {
  built = buildPackage();
  scratch = mkdtempSync(join(tmpdir(), 'muster-io-'));
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A workdir with a project `.muster/mcp.json`, and a MUSTER_HOME with a user `mcp.json`. */
function configFolders(): { workdir: string; home: string; files: string[] } {
  const workdir = mkdtempSync(join(scratch, 'wd-'));
  const home = mkdtempSync(join(scratch, 'home-'));
  mkdirSync(join(workdir, '.muster'));
  const project = join(workdir, '.muster', 'mcp.json');
  const user = join(home, 'mcp.json');
  writeFileSync(
    project,
    JSON.stringify({ mcpServers: { files: { command: process.execPath, args: ['files.mjs'] } } }),
  );
  writeFileSync(
    user,
    JSON.stringify({ mcpServers: { docs: { type: 'http', url: 'https://docs.example.com/mcp' } } }),
  );
  return { workdir, home, files: [project, user] };
}

/** Runs `afterMark` (module body text) after the mark in a recorded process; what it did. */
function activityOf(afterMark: string, env: Record<string, string> = {}): Activity[] {
  const root = pathToFileURL(entryPoints(built.dir).find((e) => e.subpath === '.')!.js).href;
  const script = `
    import { createRequire } from 'node:module';
    import { z } from 'zod';
    const m = await import(${JSON.stringify(root)});
    const recorder = globalThis[Symbol.for('muster.activity')];
    const server = m.createSdkMcpServer({
      name: 'crm',
      tools: [m.sdkTool('find', 'Finds a customer.', { name: z.string() }, async () => ({ content: [] }))],
    });
    process.on('exit', () => process.stdout.write(JSON.stringify(recorder.after())));
    recorder.mark();
    ${afterMark}
  `;
  const log = join(scratch, `activity-${process.hrtime.bigint()}.log`);
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      join(ROOT, 'test/fixtures/package/record-activity.mjs'),
      '--input-type=module',
      '-e',
      script,
    ],
    {
      cwd: built.dir,
      env: { ...process.env, ...env, MUSTER_ACTIVITY_LOG: log },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      // a timer or a socket left open by createAgent keeps the process alive: that fails too
      timeout: 60_000,
    },
  );
  return JSON.parse(out) as Activity[];
}

const CREATE_AGENT = `
  const agent = m.createAgent({
    workdir: process.env.TEST_WORKDIR,
    mcpServers: {
      local: { command: process.execPath, args: ['server.mjs'], env: { TOKEN: 'x' } },
      remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'a' } },
      vault: { type: 'http', url: 'https://vault.example.com/mcp' },
      crm: { type: 'sdk', server },
    },
    mcp: {
      protocol: { mode: 'auto', probeTimeoutMs: 5000 },
      handlers: {
        roots: [{ uri: 'file:///tmp/project', name: 'project' }],
        sampling: 'agent',
        elicitation: async () => ({ action: 'decline' }),
        logging: () => {},
      },
      reconnect: { enabled: true, healthCheckIntervalMs: 60000 },
      exposeResources: true,
      oauth: {
        remote: {
          serverUrl: 'https://mcp.example.com/mcp',
          allowedOrigins: ['https://auth.example.com'],
          redirectUri: 'http://127.0.0.1:4000/callback',
          store: 'file',
        },
        vault: {
          serverUrl: 'https://vault.example.com/mcp',
          allowedOrigins: ['https://auth.example.com'],
          redirectUri: 'http://127.0.0.1:4000/callback',
          store: 'keychain',
        },
      },
    },
  });
  if (agent.mcp.list().length !== 6) throw new Error('expected six servers');
`;

describe('createAgent with MCP options, on the built package', () => {
  it('loads no module, starts no process, opens no socket and reads only its two config files', () => {
    const { workdir, home, files } = configFolders();
    const activity = activityOf(CREATE_AGENT, { TEST_WORKDIR: workdir, MUSTER_HOME: home });
    const reads = activity.filter((a) => a.kind === 'read');
    expect(activity.filter((a) => a.kind !== 'read')).toEqual([]);
    expect([...new Set(reads.map((a) => a.what.replace(/^\w+ /, '')))].sort()).toEqual(
      [...files].sort(),
    );
  });

  it('with strictConfig it reads no file at all', () => {
    const { workdir, home } = configFolders();
    const activity = activityOf(
      CREATE_AGENT.replace(
        "protocol: { mode: 'auto'",
        "strictConfig: true, protocol: { mode: 'auto'",
      ).replace('length !== 6', 'length !== 4'),
      { TEST_WORKDIR: workdir, MUSTER_HOME: home },
    );
    expect(activity).toEqual([]);
  });

  it('the recorder does see a module load, a CommonJS require, a spawn, a socket and file I/O (the check can fail)', () => {
    const activity = activityOf(`
      await import('node:zlib');
      createRequire(import.meta.url)('zod');
      const { spawnSync } = await import('node:child_process');
      spawnSync(process.execPath, ['-e', '']);
      const net = await import('node:net');
      const listener = net.createServer((socket) => socket.destroy());
      await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
      await new Promise((resolve) => {
        const socket = net.connect({ host: '127.0.0.1', port: listener.address().port });
        socket.on('connect', () => socket.destroy());
        socket.on('close', resolve);
        socket.on('error', resolve);
      });
      listener.close();
      const { readFileSync, writeFileSync } = await import('node:fs');
      readFileSync('dist/index.js');
      const { tmpdir } = await import('node:os');
      writeFileSync(tmpdir() + '/muster-recorder-written.txt', 'x'); // never inside the package
    `);
    const has = (kind: Activity['kind'], pattern: RegExp) =>
      activity.some((a) => a.kind === kind && pattern.test(a.what));
    expect(has('resolve', /^node:zlib$/)).toBe(true);
    expect(has('require', /^_load zod$/)).toBe(true);
    expect(has('spawn', /^spawnSync /)).toBe(true);
    expect(has('connect', /^connect 127\.0\.0\.1:\d+$/)).toBe(true);
    expect(has('read', /^readFileSync dist\/index\.js$/)).toBe(true);
    expect(has('write', /^writeFileSync .*\/muster-recorder-written\.txt$/)).toBe(true);
  });
});
