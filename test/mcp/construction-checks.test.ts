import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MusterError, createAgent, scriptedModel } from '../../src/index.js';
import type { McpServerConfig } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-client-manager.js';
import { scriptedServer } from './support/stdio-scripted.js';

function thrown(fn: () => unknown): MusterError {
  let error: unknown;
  try {
    fn();
  } catch (err) {
    error = err;
  }
  expect(MusterError.isInstance(error)).toBe(true);
  return error as MusterError;
}

const base = { command: process.execPath, args: ['server.mjs'] };

describe('stdio declarations are checked at construction, not at connect', () => {
  it.each<[string, McpServerConfig, string]>([
    ['an env name with "="', { ...base, env: { 'A=B': 'x' } }, 'env'],
    ['an empty env name', { ...base, env: { '': 'x' } }, 'env'],
    ['a NUL in an env value', { ...base, env: { A: 'x\0y' } }, 'env'],
    ['a NUL in an argument', { ...base, args: ['ok', 'a\0b'] }, 'args[1]'],
    ['a NUL in cwd', { ...base, cwd: '/tmp/a\0b' }, 'cwd'],
    ['a blank command', { command: '   ' }, 'command'],
  ])('%s fails createAgent() with INVALID_CONFIGURATION naming the field', (_, config, field) => {
    const err = thrown(() =>
      createAgent({
        model: scriptedModel([{ text: 'ok' }]),
        mcpServers: { bad: config },
        mcp: { strictConfig: true },
      }),
    );
    expect(err.code).toBe('INVALID_CONFIGURATION');
    expect(err.details).toMatchObject({ server: 'bad', field });
    expect(err.message).toContain('"bad"');
    // values are never printed: they may be secrets
    expect(err.message).not.toContain('x\0y');
  });

  it('the same checks apply to McpClientManager and to register(), before anything starts', async () => {
    const err = thrown(
      () => new McpClientManager({ bad: { ...base, env: { 'A=B': 'x' } } }, { strictConfig: true }),
    );
    expect(err.details).toMatchObject({ server: 'bad', field: 'env', variable: 'A=B' });

    const server = scriptedServer();
    const manager = new McpClientManager({}, { strictConfig: true });
    try {
      const registered = await manager
        .register('late', { ...server.config, env: { 'NO=PE': 'v' } })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(MusterError.isInstance(registered)).toBe(true);
      expect((registered as MusterError).details).toMatchObject({ field: 'env' });
      // nothing was spawned for it
      expect(server.pids()).toEqual([]);
      expect(manager.list()).toEqual([]);
    } finally {
      await manager.close();
      server.cleanup();
    }
  });
});

describe('what only the start can tell is said plainly', () => {
  it('a cwd that does not exist names cwd, not the command', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-cwd-'));
    rmSync(dir, { recursive: true });
    const server = scriptedServer();
    const manager = new McpClientManager(
      { s: { ...server.config, cwd: dir } },
      { strictConfig: true, protocol: { mode: 'legacy' } },
    );
    try {
      const [summary] = await manager.connectAll();
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'MCP_CONNECTION_FAILED' } });
      expect(summary!.error!.message).toContain('its cwd');
      expect(summary!.error!.message).toContain('Fix "cwd"');
      expect(server.pids()).toEqual([]);
    } finally {
      await manager.close();
      server.cleanup();
    }
  });

  it('a command that does not exist says so', async () => {
    const manager = new McpClientManager(
      { s: { command: 'muster-no-such-command-4d2f' } },
      { strictConfig: true, protocol: { mode: 'legacy' } },
    );
    try {
      const [summary] = await manager.connectAll();
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'MCP_CONNECTION_FAILED' } });
      expect(summary!.error!.message).toContain(
        `the command "muster-no-such-command-4d2f" was not found (ENOENT)`,
      );
    } finally {
      await manager.close();
    }
  });
});
