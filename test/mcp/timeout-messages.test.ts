import { afterEach, describe, expect, it } from 'vitest';
import type { ToolError } from '../../src/errors/index.js';
import { McpError } from '../../src/errors/index.js';
import type { McpOptions, McpStdioServerConfig } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-client-manager.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { scriptedServer } from './support/stdio-scripted.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function managerFor(config: McpStdioServerConfig, options: McpOptions = {}) {
  const manager = new McpClientManager(
    { s: config },
    { strictConfig: true, protocol: { mode: 'legacy' }, ...options },
  );
  cleanups.push(() => manager.close());
  await manager.connectAll();
  expect(manager.list()[0]!.status).toBe('connected');
  return manager;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('timeout messages name the limit that fired', () => {
  it('timeoutMs: a call without a result or progress', async () => {
    const manager = await managerFor(stdioConfig('slow-server.mjs'));
    const err = (await rejection(
      manager.callTool('s', 'sleep', { ms: 5000 }, { timeoutMs: 300 }),
    )) as ToolError;
    expect(err.code).toBe('TOOL_OUTCOME_UNKNOWN');
    expect(err.details).toMatchObject({ reason: 'timeout', limit: 'timeoutMs', limitMs: 300 });
    expect(err.message).toContain('timed out after 300 ms (timeoutMs)');
  });

  it('maxTotalTimeoutMs: a call that keeps reporting progress past its total deadline', async () => {
    const manager = await managerFor(stdioConfig('slow-server.mjs'));
    const err = (await rejection(
      manager.callTool(
        's',
        'progress_sleep',
        { steps: 40, stepMs: 50 },
        { timeoutMs: 1000, maxTotalTimeoutMs: 600 },
      ),
    )) as ToolError;
    expect(err.code).toBe('TOOL_OUTCOME_UNKNOWN');
    expect(err.details).toMatchObject({
      reason: 'timeout',
      limit: 'maxTotalTimeoutMs',
      limitMs: 600,
    });
    expect(err.message).toContain('timed out after 600 ms (maxTotalTimeoutMs');
  });

  it('maxTotalTimeoutMs is a hard deadline: a silent call ends at it, not at timeoutMs', async () => {
    const manager = await managerFor(stdioConfig('slow-server.mjs'));
    const started = performance.now();
    const err = (await rejection(
      manager.callTool('s', 'sleep', { ms: 20_000 }, { timeoutMs: 15_000, maxTotalTimeoutMs: 400 }),
    )) as ToolError;
    const ms = performance.now() - started;
    expect(err.details).toMatchObject({ limit: 'maxTotalTimeoutMs', limitMs: 400 });
    expect(ms).toBeGreaterThanOrEqual(380);
    expect(ms).toBeLessThan(5000);
  });

  it('an operation that times out names timeoutMs', async () => {
    const server = scriptedServer(['--ping=hang']);
    cleanups.push(() => server.cleanup());
    const manager = await managerFor(server.config);
    const err = (await rejection(manager.ping('s', { timeoutMs: 250 }))) as McpError;
    expect(McpError.isInstance(err)).toBe(true);
    expect(err.code).toBe('MCP_OPERATION_FAILED');
    expect(err.details).toMatchObject({ reason: 'timed-out', limit: 'timeoutMs', limitMs: 250 });
    expect(err.message).toContain('timed out after 250 ms (timeoutMs)');
  });
});
