import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { McpError, ToolError } from '../../src/errors/index.js';
import { McpClientManager } from '../../src/mcp/mcp-client-manager.js';
import { declare } from '../../src/mcp/config/config-sources.js';
import type { McpServerConfig } from '../../src/mcp/contracts/config-types.js';
import { wasNotSent } from '../../src/mcp/failures/failure-reasons.js';
import { McpManager } from '../../src/mcp/operations/mcp-manager.js';
import type { ExecutorRunContext } from '../../src/tools/index.js';
import { startCuttingSsePeer, startFaultyHttpPeer } from './support/faulty-http-peer.js';
import type { FaultyHttpPeer, PeerCallPlan } from './support/faulty-http-peer.js';
import { scriptedServer } from './support/stdio-scripted.js';

/** Far above any prompt detection: a failure this late would be the timeout, not the loss. */
const TIMEOUT_MS = 10_000;
/** Loose for a busy 2-core machine. */
const PROMPT_MS = 1500;

const context = (): ExecutorRunContext => ({
  sessionId: 's',
  runId: 'r',
  signal: new AbortController().signal,
  emit: () => undefined,
  authorize: async () => ({ decision: 'allow' }) as never,
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function connected(config: McpServerConfig): Promise<McpManager> {
  const manager = new McpManager(
    [declare('p', config, 'options', 'test')],
    { protocol: { mode: 'legacy' }, operation: { timeoutMs: TIMEOUT_MS } },
    () => undefined,
  );
  cleanups.push(() => manager.close());
  await manager.prepare(context());
  expect(manager.list()[0]).toMatchObject({ status: 'connected' });
  return manager;
}

async function peer(): Promise<FaultyHttpPeer> {
  const p = await startFaultyHttpPeer();
  cleanups.push(() => p.stop().catch(() => undefined));
  return p;
}

/** Calls tool `name` and returns the error it failed with, and how long that took. */
async function failedCall(manager: McpManager, name = 'x', args: Record<string, unknown> = {}) {
  const started = performance.now();
  const err = await manager.runner
    .callTool('p', name, args, { signal: new AbortController().signal })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  const ms = performance.now() - started;
  expect(ToolError.isInstance(err)).toBe(true);
  return { err: err as ToolError, ms };
}

describe('a call that never left is "not sent"', () => {
  it('a refused connection (the server is down): TOOL_EXECUTION_FAILED, not-sent, never run', async () => {
    const server = await peer();
    const manager = await connected({ type: 'http', url: server.url });
    await server.stop();
    const { err } = await failedCall(manager);
    expect(err.code).toBe('TOOL_EXECUTION_FAILED');
    expect(err.details).toMatchObject({
      server: 'p',
      reason: 'not-sent',
      networkCode: 'ECONNREFUSED',
    });
    expect(err.message).toContain('was not sent');
    expect(wasNotSent(err)).toBe(true);
    expect(wasNotSent(err.cause)).toBe(true);
    expect(server.calls()).toBe(0);
  });

  it('a redirect is refused and the call counts as not sent', async () => {
    const server = await peer();
    const manager = await connected({ type: 'http', url: server.url });
    server.plan = 'redirect';
    const { err } = await failedCall(manager);
    expect(err.code).toBe('TOOL_EXECUTION_FAILED');
    expect(err.details).toMatchObject({ reason: 'not-sent', refusal: 'redirect' });
    expect(wasNotSent(err)).toBe(true);
    expect(server.calls()).toBe(0);
  });

  it('an operation on a refused connection is MCP_OPERATION_FAILED, not-sent', async () => {
    const server = await peer();
    const manager = new McpClientManager(
      { p: { type: 'http', url: server.url } },
      { strictConfig: true, protocol: { mode: 'legacy' } },
    );
    cleanups.push(() => manager.close());
    await manager.connectAll();
    await server.stop();
    const err = await manager.ping('p').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(McpError.isInstance(err)).toBe(true);
    expect((err as McpError).code).toBe('MCP_OPERATION_FAILED');
    expect((err as McpError).details).toMatchObject({
      reason: 'not-sent',
      networkCode: 'ECONNREFUSED',
    });
    expect(wasNotSent(err)).toBe(true);
  });
});

describe('a call that was sent and then lost is TOOL_OUTCOME_UNKNOWN, at once', () => {
  it.each<[PeerCallPlan, string]>([
    ['reset-after-request', 'ECONNRESET'],
    ['close-after-request', 'UND_ERR_SOCKET'],
    ['reset-mid-body', ''],
    ['reset-mid-sse', ''],
  ])('%s: unknown, never "not sent", within the bound', async (plan, code) => {
    const server = await peer();
    const manager = await connected({ type: 'http', url: server.url });
    server.plan = plan;
    const { err, ms } = await failedCall(manager);
    expect(err.code).toBe('TOOL_OUTCOME_UNKNOWN');
    expect(err.details).toMatchObject({ server: 'p', reason: 'disconnected' });
    if (code) expect(err.details.networkCode).toBe(code);
    expect(err.details.reason).not.toBe('not-sent');
    expect(wasNotSent(err)).toBe(false);
    expect(wasNotSent(err.cause)).toBe(false);
    // the server did receive it: replaying it could run it twice
    expect(server.calls()).toBe(1);
    expect(ms).toBeLessThan(PROMPT_MS);
  });

  it('a legacy SSE event stream cut during the call: unknown at once', async () => {
    const server = await startCuttingSsePeer();
    cleanups.push(() => server.stop());
    const manager = new McpManager(
      [declare('p', { type: 'sse', url: server.url }, 'options', 'test')],
      {
        transports: ['sse'],
        protocol: { mode: 'legacy' },
        operation: { timeoutMs: TIMEOUT_MS },
      },
      () => undefined,
    );
    cleanups.push(() => manager.close());
    await manager.prepare(context());
    expect(manager.list()[0]).toMatchObject({ status: 'connected' });
    const { err, ms } = await failedCall(manager);
    expect(err.code).toBe('TOOL_OUTCOME_UNKNOWN');
    expect(err.details).toMatchObject({ reason: 'disconnected' });
    expect(wasNotSent(err)).toBe(false);
    expect(server.calls()).toBe(1);
    expect(ms).toBeLessThan(PROMPT_MS);
  });

  it('a stdio server that exits mid-call: unknown at once, with its exit code', async () => {
    const server = scriptedServer();
    cleanups.push(() => server.cleanup());
    const manager = await connected(server.config);
    const { err, ms } = await failedCall(manager, 'crash');
    expect(err.code).toBe('TOOL_OUTCOME_UNKNOWN');
    expect(err.details).toMatchObject({ reason: 'disconnected', exit: { code: 7, signal: null } });
    expect(err.message).toContain('exited with code 7');
    expect(wasNotSent(err)).toBe(false);
    expect(ms).toBeLessThan(PROMPT_MS);
    // the status says how the process ended
    expect(manager.list()[0]?.error?.message).toContain('exited with code 7');
  });
});

describe('wasNotSent on the errors of real sockets', () => {
  /** The rejection of a real `fetch`, as the transports see it. */
  async function fetchError(url: string): Promise<unknown> {
    return fetch(url, { method: 'POST', body: '{}' }).then(
      () => undefined,
      (e: unknown) => e,
    );
  }

  it('refused and TLS failures are not sent; a reset after the request is not', async () => {
    const plain = createServer((req, res) => {
      if (req.url === '/reset') req.socket.resetAndDestroy();
      else res.end('ok');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => plain.close(() => resolve())));
    const { port } = plain.address() as AddressInfo;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const refused = await fetchError(`http://127.0.0.1:${closedPort}/`);
    expect(wasNotSent(refused)).toBe(true);
    // TLS spoken to a plain HTTP port: the handshake fails before any request byte is written
    const tls = await fetchError(`https://127.0.0.1:${port}/`);
    expect((tls as { cause?: { code?: string } }).cause?.code).toBe('ERR_SSL_WRONG_VERSION_NUMBER');
    expect(wasNotSent(tls)).toBe(true);
    const reset = await fetchError(`http://127.0.0.1:${port}/reset`);
    expect((reset as { cause?: { code?: string } }).cause?.code).toBe('ECONNRESET');
    expect(wasNotSent(reset)).toBe(false);
    expect(wasNotSent(new Error('ECONNREFUSED: refused'))).toBe(false);
  });
});
