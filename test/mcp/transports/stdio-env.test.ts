import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpConnection } from '../../../src/mcp/client/mcp-connection.js';
import type { ServerProcess } from '../../../src/mcp/client/mcp-connection.js';
import { createTransport, stdioServerParameters } from '../../../src/mcp/transports/index.js';
import type { TransportContext, TransportHandle } from '../../../src/mcp/transports/index.js';
import { runnableScript } from '../../support/ts-script.js';

const fixtures = fileURLToPath(new URL('../../fixtures/mcp/', import.meta.url));
const ENV_SERVER = join(fixtures, 'env-server.mjs');
const LAUNCHER = join(fixtures, 'sandbox-launcher.mjs');
const HARNESS = fileURLToPath(new URL('./stderr-harness.ts', import.meta.url));

const CANARY = 'MUSTER_CANARY_SECRET';
const CANARY_VALUE = 'canary-value-must-not-leak';

function ctx(extra: Partial<TransportContext> = {}): TransportContext {
  return { server: 'env', maxResponseBytes: 1 << 20, stderrBytes: 4096, ...extra };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `pid` is gone (a grandchild exits on its own once its stdin closes). */
async function gone(pid: number, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

async function getEnv(client: Client): Promise<Record<string, string>> {
  const result = await client.callTool({ name: 'get_env', arguments: {} });
  const [first] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(first!.text) as Record<string, string>;
}

/** The pid the fixture reported on stderr ("env-server: started pid=<pid>"). */
function serverPid(handle: TransportHandle): number {
  const match = /env-server: started pid=(\d+)/.exec(handle.stderrTail?.() ?? '');
  if (match === null) throw new Error('the fixture did not report its pid on stderr');
  return Number(match[1]);
}

/** Waits until the fixture's stderr line has arrived in the ring. */
async function stderrArrived(handle: TransportHandle): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!(handle.stderrTail?.() ?? '').includes('env-server: started')) {
    if (Date.now() > deadline) throw new Error('no stderr from the fixture');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('stdio transport', () => {
  const clients: Client[] = [];
  beforeAll(() => {
    process.env[CANARY] = CANARY_VALUE;
  });
  afterAll(() => {
    delete process.env[CANARY];
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  });

  function newClient(mode: 'legacy' | 'auto' = 'legacy'): Client {
    const client = new Client(
      { name: 'muster-test', version: '0.0.0' },
      { versionNegotiation: { mode } },
    );
    clients.push(client);
    return client;
  }

  it.each(['legacy', 'auto'] as const)(
    '%s mode: the child sees only the safe defaults and the declared env',
    async (mode) => {
      expect(process.env[CANARY]).toBe(CANARY_VALUE);
      const handle = createTransport(
        { command: process.execPath, args: [ENV_SERVER], env: { DECLARED: 'yes' } },
        ctx(),
      );
      const client = newClient(mode);
      await client.connect(handle.transport);

      const env = await getEnv(client);

      const allowed = new Set([...DEFAULT_INHERITED_ENV_VARS, 'DECLARED']);
      expect(Object.keys(env).filter((key) => !allowed.has(key))).toEqual([]);
      expect(env.DECLARED).toBe('yes');
      expect(env[CANARY]).toBeUndefined();
      expect(JSON.stringify(env)).not.toContain(CANARY_VALUE);
      // The defaults the client passes on are the parent's own values.
      if (process.env.PATH !== undefined) expect(env.PATH).toBe(process.env.PATH);
    },
  );

  it('keeps stderr in the ring buffer and reaps the child on close', async () => {
    const handle = createTransport({ command: process.execPath, args: [ENV_SERVER] }, ctx());
    const transport = handle.transport as StdioClientTransport;
    const client = newClient();
    await client.connect(transport);
    await getEnv(client);
    await stderrArrived(handle);

    const pid = transport.pid;
    expect(pid).toEqual(expect.any(Number));
    expect(serverPid(handle)).toBe(pid);
    expect(isAlive(pid!)).toBe(true);

    await client.close();

    expect(() => process.kill(pid!, 0)).toThrow();
    expect(handle.stderrTail?.()).toContain(`env-server: started pid=${pid}`);
  });

  it('keeps only the last stderrBytes bytes', async () => {
    const handle = createTransport(
      { command: process.execPath, args: [ENV_SERVER] },
      ctx({ stderrBytes: 12 }),
    );
    const client = newClient();
    await client.connect(handle.transport);
    await getEnv(client);
    const deadline = Date.now() + 3000;
    while (!(handle.stderrTail?.() ?? '').endsWith('\n') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const tail = handle.stderrTail?.() ?? '';
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(12);
    expect(tail).toMatch(/pid=\d+\n$/);
  });

  it('never passes the child stderr through to the parent', () => {
    const run = spawnSync(process.execPath, [runnableScript(HARNESS), ENV_SERVER], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(0);
    expect(run.stderr).not.toContain('env-server: started');
    const { tail } = JSON.parse(run.stdout) as { tail: string };
    expect(tail).toContain('env-server: started pid=');
  });
});

describe('stdio sandbox', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'muster-sandbox-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds the launcher command line around the server command', () => {
    const params = stdioServerParameters(
      { command: 'srv', args: ['--a', 'b'], env: { K: 'v' }, cwd: '/tmp', maxBufferSize: 1024 },
      { command: 'bwrap', args: ['--ro-bind', '/', '/'] },
    );
    expect(params).toEqual({
      command: 'bwrap',
      args: ['--ro-bind', '/', '/', 'srv', '--a', 'b'],
      env: { K: 'v' },
      stderr: 'pipe',
      cwd: '/tmp',
      maxBufferSize: 1024,
    });
  });

  it.each([
    ['legacy', 1],
    ['auto', 1],
  ] as const)('%s mode: the server process runs through the launcher', async (mode, runs) => {
    const marker = join(dir, `${mode}.log`);
    let started: ServerProcess | undefined;
    const connection = await McpConnection.open({
      server: 'env',
      config: { command: process.execPath, args: [ENV_SERVER], env: { DECLARED: 'sandboxed' } },
      mode,
      transport: ctx({
        sandbox: { command: process.execPath, args: [LAUNCHER, `--marker=${marker}`] },
      }),
      connectTimeoutMs: 20_000,
      onToolsChanged: () => undefined,
      onUnexpectedClose: () => undefined,
      onProcess: (p) => (started = p),
    });

    const result = await connection.request((c) => c.callTool({ name: 'get_env', arguments: {} }));
    const [first] = result.content as Array<{ type: string; text: string }>;
    const env = JSON.parse(first!.text) as Record<string, string>;
    expect(env.DECLARED).toBe('sandboxed');
    expect(env[CANARY]).toBeUndefined();
    const lines = readFileSync(marker, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(runs);
    for (const line of lines) expect(JSON.parse(line)).toEqual([process.execPath, ENV_SERVER]);

    const deadline = Date.now() + 3000;
    while (!connection.stderrTail().includes('env-server: started') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const launcherPid = started!.pid()!;
    const server = Number(/env-server: started pid=(\d+)/.exec(connection.stderrTail())![1]);
    expect(server).not.toBe(launcherPid);

    await connection.close();

    expect(isAlive(launcherPid)).toBe(false);
    expect(await gone(server)).toBe(true);
  });
});
