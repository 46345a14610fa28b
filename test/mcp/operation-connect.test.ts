import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MusterError } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { deferred } from '../support/run-helpers.js';

// Connect on first use happens inside every attempt and within the caller's signal and
// timeoutMs; a server that stays unconnected fails with its own recorded error.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('operations connect inside each attempt', () => {
  it('a retry after the connection was lost reconnects instead of failing "not connected"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-crash-'));
    dirs.push(dir);
    const m = new McpClientManager(
      { features: stdioConfig('features-server.mjs', [`--crash-marker=${join(dir, 'm')}`]) },
      { strictConfig: true },
    );
    try {
      await m.connectAll();
      const read = await m.readResource('features', 'crash://once', {
        retry: { maxAttempts: 3, initialDelayMs: 1 },
      });
      expect((read.contents[0] as { text: string }).text).toBe('after the crash');
      expect(m.getConnection('features').status).toBe('connected');
    } finally {
      await m.close();
    }
  }, 20_000);

  it('a pending mcp_connect approval gives way to the caller’s signal', async () => {
    const asked = deferred();
    const m = new McpClientManager(
      { features: stdioConfig('features-server.mjs') },
      {
        strictConfig: true,
        policy: {
          approve: () => {
            asked.resolve();
            return new Promise<boolean>(() => undefined);
          },
        },
      },
    );
    try {
      const controller = new AbortController();
      const ping = m.ping('features', { signal: controller.signal }).catch((e: unknown) => e);
      await asked.promise;
      controller.abort();
      const err = await ping;
      expect(MusterError.isInstance(err) && err.code).toBe('ABORTED');
    } finally {
      await m.close();
    }
  }, 20_000);

  it('a pending mcp_connect approval gives way to timeoutMs', async () => {
    const m = new McpClientManager(
      { features: stdioConfig('features-server.mjs') },
      { strictConfig: true, policy: { approve: () => new Promise<boolean>(() => undefined) } },
    );
    try {
      const err = await m.ping('features', { timeoutMs: 100 }).catch((e: unknown) => e);
      expect(MusterError.isInstance(err) && err.code).toBe('MCP_CONNECTION_FAILED');
      expect(MusterError.isInstance(err) && err.message).toContain('timeoutMs');
    } finally {
      await m.close();
    }
  }, 20_000);

  it('a failed connect surfaces its own code and redacted message', async () => {
    const m = new McpClientManager(
      { broken: stdioConfig('fail-start-server.mjs') },
      { strictConfig: true },
    );
    try {
      const err = await m.ping('broken').catch((e: unknown) => e);
      expect(MusterError.isInstance(err) && err.code).toBe('MCP_CONNECTION_FAILED');
      expect(JSON.stringify(err) + String((err as Error).message)).not.toContain(
        'SECRET-TOKEN-abc123',
      );
      expect(m.getConnection('broken').status).toBe('failed');
    } finally {
      await m.close();
    }
  }, 20_000);

  it('a server outside mcp.allowedServers fails with its recorded INVALID_CONFIGURATION', async () => {
    const m = new McpClientManager(
      { features: stdioConfig('features-server.mjs') },
      { strictConfig: true, allowedServers: [] },
    );
    try {
      const err = await m.ping('features').catch((e: unknown) => e);
      expect(MusterError.isInstance(err) && err.code).toBe('INVALID_CONFIGURATION');
      expect((err as Error).message).toContain('allowedServers');
    } finally {
      await m.close();
    }
  }, 20_000);
});
