import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { McpOptions, McpServerConfig, ToolProgress } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { OperationRunner } from '../../src/mcp/connection/operation-runner.js';
import { readCountingLog, stdioConfig } from '../support/mcp-fixtures.js';

// Direct calls (`McpClientManager.callTool`, `agent.mcp.callTool`) against real stdio
// fixture servers: progress (which resets the timeout) and the argument check before sending.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
});

function managerFor(config: McpServerConfig, options: McpOptions = {}) {
  const m = new McpClientManager(
    { s: config },
    { strictConfig: true, protocol: { mode: 'legacy' }, ...options },
  );
  cleanup.push(() => m.close());
  return m;
}

async function countingLog() {
  const dir = await mkdtemp(join(tmpdir(), 'muster-direct-call-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const log = join(dir, 'counting.log');
  const config = stdioConfig('counting-server.mjs', [`--log=${log}`, '--log-requests']);
  /** The JSON-RPC requests the server read, by method. */
  const requests = async (method: string) =>
    (await readCountingLog(log)).filter((l) => (l.event as string) === method).length;
  return { config: { type: 'stdio' as const, ...config }, requests };
}

/** slow-server.mjs, connected (so a short timeoutMs bounds the call only, not the connect). */
async function connectedSlow() {
  const m = managerFor({ type: 'stdio', ...stdioConfig('slow-server.mjs') });
  await m.connectAll();
  expect(m.list()[0]!.status).toBe('connected');
  return m;
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as { code?: string; details?: Record<string, unknown>; message?: string },
  );

describe('item-02: direct calls report progress, which resets their timeout', () => {
  it('item-02: a call reporting progress for longer than timeoutMs completes, and each report reaches onProgress', async () => {
    const m = await connectedSlow();
    const seen: ToolProgress[] = [];
    // 8 steps of 150 ms: 1.2 s in all, each step well inside the 600 ms timeout
    const result = await m.callTool(
      's',
      'progress_sleep',
      { steps: 8, stepMs: 150 },
      { timeoutMs: 600, onProgress: (p) => seen.push(p) },
    );
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'done after 8 steps' }] });
    expect(seen).toHaveLength(8);
    expect(seen[0]).toEqual({ progress: 1, total: 8, message: 'step 1' });
    expect(seen.at(-1)).toEqual({ progress: 8, total: 8, message: 'step 8' });
  });

  it('item-02: a throwing onProgress does not change the call', async () => {
    const m = await connectedSlow();
    let calls = 0;
    const result = await m.callTool(
      's',
      'progress_sleep',
      { steps: 3, stepMs: 10 },
      {
        onProgress: () => {
          calls++;
          throw new Error('host bug');
        },
      },
    );
    expect(result).toMatchObject({ content: [{ text: 'done after 3 steps' }] });
    expect(calls).toBe(3);
  });

  it('item-02: without onProgress no progress is asked for, so the same call times out', async () => {
    const m = await connectedSlow();
    const err = await rejection(
      m.callTool('s', 'progress_sleep', { steps: 8, stepMs: 150 }, { timeoutMs: 600 }),
    );
    expect(err).toMatchObject({ code: 'TOOL_OUTCOME_UNKNOWN', details: { reason: 'timeout' } });
  });
});

describe('item-02: direct calls check their arguments before sending', () => {
  it('item-02: a wrong-typed argument is refused with TOOL_ARGUMENTS_INVALID and never reaches the server', async () => {
    const { config, requests } = await countingLog();
    const m = managerFor(config);
    await m.connectAll();
    const err = await rejection(m.callTool('s', 'add', { a: 'two', b: 3 }));
    expect(err).toMatchObject({
      code: 'TOOL_ARGUMENTS_INVALID',
      details: { server: 's', issues: [{ path: ['a'], message: 'must be number' }] },
    });
    expect(err?.message).toContain("Invalid arguments for 'add' on 's': a: must be number");
    // not retried either, even when retries are allowed for calls that were not sent
    const again = await rejection(
      m.callTool(
        's',
        'add',
        { a: 'two', b: 3 },
        { retry: { maxAttempts: 3, initialDelayMs: 1, retryNonIdempotent: true } },
      ),
    );
    expect(again).toMatchObject({ code: 'TOOL_ARGUMENTS_INVALID' });
    expect(await requests('tools/call')).toBe(0);
    // a right call goes through
    expect(await m.callTool('s', 'add', { a: 2, b: 3 })).toMatchObject({
      content: [{ text: '5' }],
    });
    expect(await requests('tools/call')).toBe(1);
  });

  it('item-02: agent.mcp.callTool refuses a wrong-typed argument the same way', async () => {
    const { config, requests } = await countingLog();
    const agent = createAgent({
      model: scriptedModel([{ text: 'unused' }]),
      mcp: { strictConfig: true, protocol: { mode: 'legacy' } },
      mcpServers: { s: config },
      policy: { allow: ['mcp_connect:s'] },
    });
    cleanup.push(() => agent.close());
    const err = await rejection(agent.mcp.callTool('s', 'echo', { text: 42 }));
    expect(err).toMatchObject({ code: 'TOOL_ARGUMENTS_INVALID' });
    expect(await requests('tools/call')).toBe(0);
  });

  it('item-02: the first direct call on a fresh manager lists the tools once', async () => {
    const { config, requests } = await countingLog();
    const m = managerFor(config);
    // connects on first use (which lists the tools), then checks against that listing
    expect(await m.callTool('s', 'echo', { text: 'a' })).toMatchObject({
      content: [{ text: 'counting: a' }],
    });
    expect(await m.callTool('s', 'add', { a: 1, b: 1 })).toMatchObject({
      content: [{ text: '2' }],
    });
    expect(await requests('tools/list')).toBe(1);
    expect(await requests('tools/call')).toBe(2);
  });

  it('item-02: a listing the connection holds answers the check without an operation; after tools/list_changed the call lists first', async () => {
    const { config, requests } = await countingLog();
    const m = managerFor({ ...config, args: [...config.args, '--extras'] });
    await m.connectAll();
    expect(await requests('tools/list')).toBe(1);
    // every operation on a connection goes through the runner's withConnection: the call is
    // one; a check that had to find the connection and its listing would be another
    const operations = vi.spyOn(OperationRunner.prototype, 'withConnection');
    cleanup.push(async () => operations.mockRestore());
    const wrong = await rejection(m.callTool('s', 'add', { a: 'two', b: 3 }));
    expect(wrong).toMatchObject({
      code: 'TOOL_ARGUMENTS_INVALID',
      details: { server: 's', issues: [{ path: ['a'], message: 'must be number' }] },
    });
    expect(operations).toHaveBeenCalledTimes(0);
    expect(await m.callTool('s', 'add', { a: 2, b: 3 })).toMatchObject({
      content: [{ text: '5' }],
    });
    expect(operations).toHaveBeenCalledTimes(1);
    expect(await requests('tools/list')).toBe(1);
    // `grow` adds a tool: the server says the list changed, so the held listing is dropped
    expect(await m.callTool('s', 'grow', {})).toMatchObject({ content: [{ text: 'grown-1' }] });
    operations.mockClear();
    expect(await m.callTool('s', 'grown-1', {})).toMatchObject({
      content: [{ text: 'grown-1' }],
    });
    // the check listed the tools through an operation of its own, then the call went out
    expect(operations).toHaveBeenCalledTimes(2);
    expect(await requests('tools/list')).toBe(2);
    expect(await requests('tools/call')).toBe(3);
  });
});
