/**
 * `mcp.protocol` pins (issue 25, item 4): an unknown pinned version fails at construction,
 * naming the versions the official client speaks; a pin the server does not offer says so,
 * against the legacy-only and modern-only fixtures over loopback HTTP and real stdio pipes.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { MusterError, createAgent, scriptedModel } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { startLegacyOnlyHttpServer, stdioConfig } from '../support/mcp-fixtures.js';
import { scriptedServer } from './support/stdio-scripted.js';

function thrown(fn: () => unknown): MusterError {
  try {
    fn();
  } catch (err) {
    expect(MusterError.isInstance(err)).toBe(true);
    return err as MusterError;
  }
  throw new Error('expected a throw');
}

const pin = (version: string) => ({ mode: { pin: version } });

describe('item-04: a pinned version is checked at construction', () => {
  it('item-04: an unknown pin is INVALID_CONFIGURATION naming the supported versions', () => {
    const viaAgent = thrown(() =>
      createAgent({
        model: scriptedModel([{ text: 'ok' }]),
        mcp: { strictConfig: true, protocol: pin('2025-01-01') },
      }),
    );
    const viaManager = thrown(
      () => new McpClientManager({}, { strictConfig: true, protocol: pin('2025-01-01') }),
    );
    for (const err of [viaAgent, viaManager]) {
      expect(err.code).toBe('INVALID_CONFIGURATION');
      expect(err.message).toContain('"2025-01-01"');
      // the client's own list, plus the modern revision
      for (const v of [...SUPPORTED_PROTOCOL_VERSIONS, '2026-07-28'])
        expect(err.message).toContain(v);
      expect(err.details).toMatchObject({ field: 'protocol.mode.pin' });
      expect(err.details['supported']).toEqual(['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS]);
    }
  });

  it('item-04: the modern revision and every version of the client are accepted', () => {
    for (const v of ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS])
      void new McpClientManager({}, { strictConfig: true, protocol: pin(v) }).close();
  });
});

describe('item-04: a pin the server does not offer says so', () => {
  it('item-04: 2026-07-28 against legacy-only servers (HTTP and stdio) suggests auto', async () => {
    const http = await startLegacyOnlyHttpServer();
    const stdio = scriptedServer(); // a legacy server: server/discover is an unknown method
    const ending = scriptedServer(['--discover=exit']); // ends on the probe, as SDK v1 servers do
    const m = new McpClientManager(
      { h: { type: 'http', url: http.url }, s: stdio.config, x: ending.config },
      { strictConfig: true, protocol: pin('2026-07-28') },
    );
    try {
      const summary = await m.connectAll();
      expect(summary.map((s) => s.status)).toEqual(['failed', 'failed', 'failed']);
      for (const s of summary) {
        expect(s.error?.code).toBe('MCP_CONNECTION_FAILED');
        expect(s.error?.message).toContain('does not offer the pinned protocol version 2026-07-28');
        expect(s.error?.message).toContain("'auto'");
        expect(s.error?.message).not.toMatch(/exited with code/);
      }
    } finally {
      await m.close();
      await http.close();
      stdio.cleanup();
      ending.cleanup();
    }
  }, 30_000);

  it('item-04: a pin the server speaks connects in that version', async () => {
    const http = await startLegacyOnlyHttpServer();
    const legacyPinned = new McpClientManager(
      { h: { type: 'http', url: http.url } },
      { strictConfig: true, protocol: pin('2025-06-18') },
    );
    const modernPinned = new McpClientManager(
      { b: stdioConfig('basic-server.mjs', ['--modern-only']) },
      { strictConfig: true, protocol: pin('2026-07-28') },
    );
    try {
      await legacyPinned.connectAll();
      expect(legacyPinned.list()[0]).toMatchObject({
        status: 'connected',
        era: 'legacy',
        protocolVersion: '2025-06-18',
      });
      await modernPinned.connectAll();
      expect(modernPinned.list()[0]).toMatchObject({
        status: 'connected',
        era: 'modern',
        protocolVersion: '2026-07-28',
      });
    } finally {
      await legacyPinned.close();
      await modernPinned.close();
      await http.close();
    }
  }, 30_000);
});
