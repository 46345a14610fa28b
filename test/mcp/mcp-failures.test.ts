import { InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors/index.js';
import { declare } from '../../src/mcp/config/config-sources.js';
import type { McpServerConfig } from '../../src/mcp/contracts/config-types.js';
import { McpConnection } from '../../src/mcp/client/mcp-connection.js';
import type { McpEvent } from '../../src/mcp/contracts/mcp-events.js';
import { McpManager } from '../../src/mcp/operations/mcp-manager.js';
import type { ExecutorRunContext } from '../../src/tools/index.js';
import { startLegacyOnlyHttpServer } from '../fixtures/mcp/http-servers.mjs';
import { startScriptedPeer } from './transports/loopback-servers.js';
import type { CallAnswer, Loopback } from './transports/loopback-servers.js';

const CANARY = 'CANARY-header-7f3a9c2e51';

const context = (signal = new AbortController().signal): ExecutorRunContext => ({
  sessionId: 's',
  runId: 'r',
  signal,
  emit: () => undefined,
  authorize: async () => ({ decision: 'allow' }) as never,
});

async function managerFor(name: string, config: McpServerConfig, events: McpEvent[] = []) {
  const manager = new McpManager(
    [declare(name, config, 'options', 'test')],
    { protocol: { mode: 'legacy' }, operation: { timeoutMs: 10_000 } },
    (e) => void events.push(e),
  );
  await manager.prepare(context());
  expect(manager.list()[0]).toMatchObject({ status: 'connected' });
  return manager;
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ToolError.isInstance(err)).toBe(true);
  return err as ToolError;
}

describe('call failures are classified on typed facts', () => {
  let answer: CallAnswer = { kind: 'json', bytes: 1, contentLength: true };
  let peer: Loopback;
  beforeAll(async () => {
    peer = await startScriptedPeer(() => answer);
  });
  afterAll(() => peer.close());
  const config = (): McpServerConfig => ({
    type: 'http',
    url: `${peer.origin}/mcp`,
    headers: { 'X-Api-Key': CANARY },
  });

  it('a JSON-RPC error whose message says "not connected" is a server refusal, never "not sent"', async () => {
    const manager = await managerFor('p', config());
    try {
      answer = { kind: 'rpc-error', code: -32603, message: 'Upstream database not connected' };
      const err = await failure(
        manager.runner.callTool('p', 'x', {}, { signal: new AbortController().signal }),
      );
      expect(err.code).toBe('TOOL_EXECUTION_FAILED');
      expect(err.details).toMatchObject({ server: 'p', protocolCode: -32603 });
      expect(err.details.reason).toBeUndefined();
    } finally {
      await manager.close();
    }
  });

  it('a transport that gives up on a call fails it promptly as TOOL_OUTCOME_UNKNOWN, with a sanitized diagnostic', async () => {
    const events: McpEvent[] = [];
    const manager = await managerFor('p', config(), events);
    try {
      answer = { kind: 'sse-drop' };
      const started = Date.now();
      const err = await failure(
        manager.runner.callTool('p', 'x', {}, { signal: new AbortController().signal }),
      );
      // the call timeout is 10 s: failing at once means the lost stream was noticed
      expect(Date.now() - started).toBeLessThan(3000);
      expect(err.code).toBe('TOOL_OUTCOME_UNKNOWN');
      expect(err.details).toMatchObject({ server: 'p', reason: 'disconnected' });
      const diagnostics = events.filter((e) => e.type === 'mcp.diagnostic');
      expect(diagnostics.length).toBeGreaterThan(0);
      expect(diagnostics[0]).toMatchObject({ server: 'p' });
      expect(JSON.stringify([events, err.message, manager.list()])).not.toContain(CANARY);
    } finally {
      await manager.close();
    }
  });
});

describe('a connection closed by its peer', () => {
  it('reports closed, releases its resources and fails nothing twice', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new McpServer({ name: 'peer', version: '1.0.0' });
    await server.connect(serverSide);
    let released = 0;
    let lost = 0;
    const connection = await McpConnection.connect(
      {
        server: 'peer',
        config: { command: 'unused' },
        mode: 'legacy',
        transport: { server: 'peer', maxResponseBytes: 1 << 20, stderrBytes: 1024 },
        connectTimeoutMs: 5000,
        onToolsChanged: () => undefined,
        onUnexpectedClose: () => void lost++,
      },
      {
        transport: clientSide,
        release: async () => {
          released++;
          await server.close();
        },
      },
    );
    expect(connection.closed).toBe(false);
    await serverSide.close(); // the peer goes away
    expect(connection.closed).toBe(true);
    expect(lost).toBe(1);
    expect(released).toBe(1);
    expect(server.isConnected()).toBe(false);
    await connection.close();
    expect(released).toBe(1);
  });
});

describe('an expired HTTP session is renewed once for every caller', () => {
  it('the first caller aborting during the renewal does not fail the others', async () => {
    let hold: (() => void) | undefined;
    let held: () => void = () => undefined;
    const renewalHeld = new Promise<void>((resolve) => (held = resolve));
    let arm = false;
    const legacy = await startLegacyOnlyHttpServer(undefined, {
      gate: (request) => {
        if (!arm || request !== 'POST initialize') return undefined;
        arm = false;
        held();
        return new Promise<void>((resolve) => (hold = resolve));
      },
    });
    const manager = await managerFor('l', { type: 'http', url: legacy.url });
    try {
      await legacy.expireSessions();
      arm = true;
      const first = new AbortController();
      const a = failure(manager.runner.callTool('l', 'echo', { text: 'a' }, first));
      await renewalHeld; // the first caller's 404 started the renewal
      const calls = legacy.requests.length;
      const b = manager.runner.callTool(
        'l',
        'echo',
        { text: 'b' },
        {
          signal: new AbortController().signal,
        },
      );
      // let the second caller meet its own 404 and join the renewal
      while (legacy.requests.length === calls) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 100));
      first.abort();
      expect((await a).details).toMatchObject({ reason: 'aborted' });
      hold!();
      const result = await b;
      expect(result.content).toEqual([{ type: 'text', text: 'b' }]);
      expect(manager.list()[0]).toMatchObject({ status: 'connected' });
    } finally {
      await manager.close();
      await legacy.close();
    }
  });
});
