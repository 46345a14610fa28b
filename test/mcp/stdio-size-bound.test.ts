import { afterEach, describe, expect, it } from 'vitest';
import { McpError, ToolError } from '../../src/errors/index.js';
import type { McpStdioServerConfig } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-client-manager.js';
import type { McpEvent } from '../../src/mcp/contracts/mcp-events.js';
import { scriptedServer } from './support/stdio-scripted.js';

const LIMIT = 64 * 1024;
/** Far above prompt detection: failing this late would be the timeout, not the bound. */
const TIMEOUT_MS = 20_000;
/** Loose for a busy 2-core machine. */
const PROMPT_MS = 3000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function managerFor(config: McpStdioServerConfig, events: McpEvent[] = []): McpClientManager {
  const manager = new McpClientManager(
    { s: config },
    {
      strictConfig: true,
      protocol: { mode: 'legacy' },
      maxResponseBytes: LIMIT,
      operation: { timeoutMs: TIMEOUT_MS },
      onEvent: (e) => void events.push(e),
    },
  );
  cleanups.push(() => manager.close());
  return manager;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('mcp.maxResponseBytes bounds stdio messages', () => {
  it('a tool result over the bound is TOOL_RESULT_TOO_LARGE at once; the connection goes on', async () => {
    const server = scriptedServer();
    cleanups.push(() => server.cleanup());
    const manager = managerFor(server.config);
    await manager.connectAll();
    const started = performance.now();
    const err = await rejection(manager.callTool('s', 'big', { bytes: LIMIT * 3 }));
    const ms = performance.now() - started;
    expect(ToolError.isInstance(err)).toBe(true);
    const e = err as ToolError;
    expect(e.code).toBe('TOOL_RESULT_TOO_LARGE');
    expect(e.details).toMatchObject({
      server: 's',
      reason: 'response-too-large',
      limit: LIMIT,
      option: 'mcp.maxResponseBytes',
    });
    expect(e.details.bytes).toBeGreaterThan(LIMIT * 3);
    expect(e.message).toContain(`mcp.maxResponseBytes (${LIMIT} bytes)`);
    expect(ms).toBeLessThan(PROMPT_MS);
    // the oversized line was skipped, not the connection
    expect(manager.list()[0]!.status).toBe('connected');
    const ok = await manager.callTool('s', 'echo', { text: 'still here' });
    expect(ok.content).toEqual([{ type: 'text', text: 'still here' }]);
    // a result under the bound passes
    const fits = await manager.callTool('s', 'big', { bytes: LIMIT / 2 });
    expect((fits.content as { text: string }[])[0]!.text).toHaveLength(LIMIT / 2);
  });

  it('another operation over the bound is MCP_OPERATION_FAILED with the reason and the bound', async () => {
    const server = scriptedServer();
    cleanups.push(() => server.cleanup());
    const manager = managerFor(server.config);
    await manager.connectAll();
    const started = performance.now();
    const err = await rejection(manager.readResource('s', `big://${LIMIT * 2}`));
    const ms = performance.now() - started;
    expect(McpError.isInstance(err)).toBe(true);
    const e = err as McpError;
    expect(e.code).toBe('MCP_OPERATION_FAILED');
    expect(e.details).toMatchObject({ reason: 'response-too-large', limit: LIMIT });
    expect(e.message).toContain(`mcp.maxResponseBytes (${LIMIT} bytes)`);
    expect(ms).toBeLessThan(PROMPT_MS);
    const small = await manager.readResource('s', 'big://10');
    expect(small.contents[0]).toMatchObject({ text: 'y'.repeat(10) });
  });

  it("a server's own maxBufferSize wins, and the message names it", async () => {
    const server = scriptedServer();
    cleanups.push(() => server.cleanup());
    const manager = managerFor({ ...server.config, maxBufferSize: 4096 });
    await manager.connectAll();
    const err = (await rejection(manager.callTool('s', 'big', { bytes: 8000 }))) as ToolError;
    expect(err.code).toBe('TOOL_RESULT_TOO_LARGE');
    expect(err.details).toMatchObject({ limit: 4096, option: 'maxBufferSize' });
    expect(err.message).toContain('maxBufferSize (4096 bytes)');
    expect((await manager.callTool('s', 'echo', { text: 'a' })).content).toEqual([
      { type: 'text', text: 'a' },
    ]);
  });
});
