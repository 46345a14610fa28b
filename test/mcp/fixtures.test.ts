/**
 * Self-test of the MCP fixtures: connects the real SDK v2 client to every
 * fixture server and reference server once and checks they behave as the
 * fixture comments describe.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, Progress } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  bigJson,
  bigText,
  EVERYTHING_TOOLS,
  everythingStdioConfig,
  filesystemStdioConfig,
  fixturePath,
  memoryStdioConfig,
  readCountingLog,
  SAFE_NAMES_TOOLS,
  startDualHttpServer,
  startEverythingHttp,
  startLegacyOnlyHttpServer,
  startModernOnlyHttpServer,
  stdioConfig,
} from '../support/mcp-fixtures.js';
import type { HttpFixture, StdioLaunch } from '../support/mcp-fixtures.js';

type Mode = 'auto' | 'legacy' | { pin: string };

/** Closers run after each test, so a failing test still leaks nothing. */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  const pending = cleanups.splice(0).reverse();
  for (const cleanup of pending) await cleanup().catch(() => undefined);
});

function newClient(mode: Mode, listChanged?: (tools: string[]) => void): Client {
  const client = new Client(
    { name: 'fixtures-test', version: '1.0.0' },
    {
      versionNegotiation: { mode },
      ...(listChanged && {
        listChanged: {
          tools: { onChanged: (_error, tools) => listChanged((tools ?? []).map((t) => t.name)) },
        },
      }),
    },
  );
  cleanups.push(() => client.close());
  return client;
}

async function connectStdio(
  launch: StdioLaunch,
  mode: Mode = 'auto',
  listChanged?: (tools: string[]) => void,
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const client = newClient(mode, listChanged);
  const transport = new StdioClientTransport({ ...launch, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

async function connectHttp(url: string, mode: Mode = 'auto'): Promise<Client> {
  const client = newClient(mode);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

async function callText(client: Client, name: string, args: Record<string, unknown> = {}) {
  return textOf(await client.callTool({ name, arguments: args }));
}

/** A promise plus its resolver, for waiting on callbacks. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'muster-mcp-fixtures-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('stdio fixtures', () => {
  it('basic-server: echo/add, named copies, both eras', async () => {
    const { client } = await connectStdio(stdioConfig('basic-server.mjs', ['--name=n3']));
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()?.name).toBe('basic-n3');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'add']);
    expect(tools.find((t) => t.name === 'echo')?.annotations?.readOnlyHint).toBe(true);
    expect(await callText(client, 'echo', { text: 'hi' })).toBe('n3: hi');
    expect(await callText(client, 'add', { a: 2, b: 3 })).toBe('5');

    const copies = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        connectStdio(stdioConfig('basic-server.mjs', [`--name=c${i}`]), 'legacy'),
      ),
    );
    const echoes = await Promise.all(
      copies.map(({ client: c }) => callText(c, 'echo', { text: 'x' })),
    );
    expect(echoes).toEqual(['c0: x', 'c1: x', 'c2: x', 'c3: x']);
    expect(copies.map(({ client: c }) => c.getProtocolEra())).toEqual(Array(4).fill('legacy'));
  });

  it('basic-server --modern-only rejects a legacy client', async () => {
    const launch = stdioConfig('basic-server.mjs', ['--modern-only']);
    await expect(connectStdio(launch, 'legacy')).rejects.toThrow(/Unsupported protocol version/);
    const { client } = await connectStdio(launch, 'auto');
    expect(client.getProtocolEra()).toBe('modern');
  });

  it('safe-names-server: names that do not fit a model-facing pattern', async () => {
    const { client } = await connectStdio(stdioConfig('safe-names-server.mjs'));
    expect(await toolNames(client)).toEqual([...SAFE_NAMES_TOOLS]);
    const safe = /^[A-Za-z0-9_-]{1,64}$/;
    const unsafe = SAFE_NAMES_TOOLS.filter((name) => !safe.test(`mcp__safe-names__${name}`));
    expect(unsafe).toEqual(SAFE_NAMES_TOOLS.filter((name) => name !== 'ok_tool'));
    expect(SAFE_NAMES_TOOLS.some((name) => name.length === 70)).toBe(true);
    for (const name of SAFE_NAMES_TOOLS) expect(await callText(client, name)).toBe(name);
  });

  it('many-tools-server: a catalog of --tools=N tools in one page, both eras', async () => {
    const { client } = await connectStdio(stdioConfig('many-tools-server.mjs', ['--tools=12']));
    expect(client.getProtocolEra()).toBe('modern');
    const names = await toolNames(client);
    expect(names).toEqual(
      Array.from({ length: 12 }, (_, i) => `tool_${String(i).padStart(3, '0')}`),
    );
    expect(await callText(client, 'tool_011', { text: 'x' })).toBe('tool_011: x');
    const { client: legacy } = await connectStdio(stdioConfig('many-tools-server.mjs'), 'legacy');
    const { tools } = await legacy.listTools();
    expect(tools).toHaveLength(500);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });

  it('big-result-server: exact, recomputable large results', async () => {
    const { client } = await connectStdio(stdioConfig('big-result-server.mjs'));
    const text = await callText(client, 'big', { kib: 300 });
    expect(Buffer.byteLength(text)).toBe(300 * 1024);
    expect(text).toBe(bigText(300));
    const json = await client.callTool({ name: 'big_json', arguments: {} });
    expect(textOf(json)).toBe(JSON.stringify(bigJson()));
    expect(json.structuredContent).toEqual(bigJson());
    expect(Math.round(textOf(json).length / 1024)).toBeGreaterThanOrEqual(95);
    expect(Math.round(textOf(json).length / 1024)).toBeLessThanOrEqual(105);
  });

  it.each(['auto', 'legacy'] as const)(
    'list-changing-server: mutate swaps beta for gamma and notifies (%s)',
    async (mode) => {
      const changed = deferred<string[]>();
      const { client } = await connectStdio(
        stdioConfig('list-changing-server.mjs'),
        mode,
        changed.resolve,
      );
      expect(client.getProtocolEra()).toBe(mode === 'auto' ? 'modern' : 'legacy');
      expect((await toolNames(client)).sort()).toEqual(['alpha', 'beta', 'mutate']);
      expect(await callText(client, 'beta')).toBe('beta');
      expect(await callText(client, 'mutate')).toBe('mutate');
      expect((await changed.promise).sort()).toEqual(['alpha', 'gamma', 'mutate']);
      expect((await toolNames(client)).sort()).toEqual(['alpha', 'gamma', 'mutate']);
      expect(await callText(client, 'gamma')).toBe('gamma');
      await expect(client.callTool({ name: 'beta', arguments: {} })).rejects.toThrow(/not found/);
    },
  );

  it('slow-server: progress keeps a call alive past its timeout; sleep times out', async () => {
    const { client } = await connectStdio(stdioConfig('slow-server.mjs'));
    // Warm-up: in the modern era connect() resolves from the probe sibling's
    // answer, so the first request also waits for the real child to boot.
    expect(await callText(client, 'sleep', { ms: 0 })).toBe('slept 0ms');

    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'progress_sleep', arguments: { steps: 8, stepMs: 100 } },
      { timeout: 400, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p) },
    );
    expect(textOf(result)).toBe('done after 8 steps');
    // The SDK may drop a progress notification that arrives with the result.
    expect(progress.length).toBeGreaterThanOrEqual(7);
    for (const p of progress) expect(p).toMatchObject({ total: 8, message: `step ${p.progress}` });

    await expect(
      client.callTool(
        { name: 'progress_sleep', arguments: { steps: 8, stepMs: 100 } },
        { timeout: 250, onprogress: () => undefined },
      ),
    ).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    await expect(
      client.callTool({ name: 'sleep', arguments: { ms: 60_000 } }, { timeout: 200 }),
    ).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    expect(await callText(client, 'sleep', { ms: 1 })).toBe('slept 1ms');

    // Closing with a call in flight (it has reported progress): the call fails
    // and the child still exits (the suite would hang otherwise).
    const started = deferred<void>();
    const inFlight = client.callTool(
      { name: 'progress_sleep', arguments: { steps: 10_000, stepMs: 20 } },
      { onprogress: () => started.resolve() },
    );
    inFlight.catch(() => undefined);
    await started.promise;
    await client.close();
    await expect(inFlight).rejects.toThrow(/closed/i);
  });

  it('exit-mid-call-server: crash rejects the pending call', async () => {
    const { client } = await connectStdio(stdioConfig('exit-mid-call-server.mjs'));
    expect(await callText(client, 'ok')).toBe('ok');
    const closed = deferred<void>();
    client.onclose = () => closed.resolve();
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(/closed/i);
    await closed.promise;
  });

  it('counting-server: logs every process start (the auto probe doubles them)', async () => {
    const log = join(tmp, 'counting-auto.log');
    const launch = stdioConfig('counting-server.mjs', ['--name=cnt', `--log=${log}`, '--log-exit']);
    const { client, transport } = await connectStdio(launch, 'auto');
    expect(await callText(client, 'echo', { text: 'hi' })).toBe('cnt: hi');
    const starts = (await readCountingLog(log)).filter((e) => e.event === 'start');
    expect(starts).toHaveLength(2); // the server/discover probe sibling + the session child
    expect(starts.map((e) => e.pid)).toContain(transport.pid);
    await client.close();
    const exits = (await readCountingLog(log)).filter((e) => e.event === 'exit');
    expect(exits.map((e) => e.pid).sort()).toEqual(starts.map((e) => e.pid).sort());

    const legacyLog = join(tmp, 'counting-legacy.log');
    const legacy = await connectStdio(
      stdioConfig('counting-server.mjs', [`--log=${legacyLog}`]),
      'legacy',
    );
    expect(await callText(legacy.client, 'add', { a: 1, b: 1 })).toBe('2');
    expect(await readCountingLog(legacyLog)).toEqual([
      { name: 'counting', pid: legacy.transport.pid, event: 'start' },
    ]);
  });

  it('fail-start-server: exits 3 with a secret on stderr; connect fails', async () => {
    const child = spawn(process.execPath, [fixturePath('fail-start-server.mjs')], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toContain('SECRET-TOKEN-abc123');

    for (const mode of ['auto', 'legacy'] as const) {
      await expect(connectStdio(stdioConfig('fail-start-server.mjs'), mode)).rejects.toThrow(
        /closed/i,
      );
    }
  });
});

/** Registers the fixture for closing after the test (after its clients, which close first). */
function track<T extends HttpFixture>(fixture: T): T {
  cleanups.push(() => fixture.close());
  return fixture;
}

describe('HTTP fixtures', () => {
  it('modern-only: modern under auto, rejects a legacy client', async () => {
    const server = track(await startModernOnlyHttpServer([{ name: 'extra', text: 'X' }]));
    const client = await connectHttp(server.url, 'auto');
    expect(client.getProtocolEra()).toBe('modern');
    expect(await toolNames(client)).toEqual(['echo', 'whoami', 'extra']);
    expect(await callText(client, 'whoami')).toBe('modern');
    expect(await callText(client, 'echo', { text: 'hey' })).toBe('hey');
    expect(await callText(client, 'extra')).toBe('X');
    expect(server.requests[0]).toBe('POST server/discover');
    await expect(connectHttp(server.url, 'legacy')).rejects.toThrow(/Unsupported protocol version/);
    expect(server.requests.at(-1)).toBe('POST initialize');
  });

  it('legacy-only (sessions): legacy under auto; unknown session is 404', async () => {
    const server = track(await startLegacyOnlyHttpServer());
    const client = await connectHttp(server.url, 'auto');
    expect(client.getProtocolEra()).toBe('legacy');
    expect(await callText(client, 'whoami')).toBe('legacy');
    expect(await callText(client, 'echo', { text: 'hey' })).toBe('hey');
    expect(server.requests.slice(0, 2)).toEqual(['POST server/discover', 'POST initialize']);
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'no-such-session',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    await response.body?.cancel();
  });

  it('legacy-only (stateless): legacy under auto', async () => {
    const server = track(await startLegacyOnlyHttpServer(undefined, { stateless: true }));
    const client = await connectHttp(server.url, 'auto');
    expect(client.getProtocolEra()).toBe('legacy');
    expect(await callText(client, 'whoami')).toBe('legacy');
  });

  it('dual: modern under auto, legacy under legacy', async () => {
    const server = track(await startDualHttpServer());
    const modern = await connectHttp(server.url, 'auto');
    expect(modern.getProtocolEra()).toBe('modern');
    expect(await callText(modern, 'whoami')).toBe('modern');
    const legacy = await connectHttp(server.url, 'legacy');
    expect(legacy.getProtocolEra()).toBe('legacy');
    expect(await callText(legacy, 'whoami')).toBe('legacy');
    expect(await callText(legacy, 'echo', { text: 'hey' })).toBe('hey');
  });
});

describe('reference servers', () => {
  it('server-everything over stdio', async () => {
    const { client } = await connectStdio(everythingStdioConfig());
    expect(await toolNames(client)).toEqual(expect.arrayContaining([...EVERYTHING_TOOLS]));
  });

  it('server-everything over Streamable HTTP', async () => {
    const everything = await startEverythingHttp();
    cleanups.push(() => everything.close());
    expect(everything.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connectHttp(everything.url);
    expect(await toolNames(client)).toEqual(expect.arrayContaining([...EVERYTHING_TOOLS]));
    expect(await callText(client, 'echo', { message: 'hi' })).toContain('hi');
  });

  it('server-filesystem on a temp dir', async () => {
    const { client } = await connectStdio(filesystemStdioConfig(tmp));
    expect(await toolNames(client)).toContain('read_text_file');
  });

  it('server-memory with a temp file', async () => {
    const { client } = await connectStdio(memoryStdioConfig(join(tmp, 'memory.jsonl')));
    expect(await toolNames(client)).toContain('create_entities');
  });
});
