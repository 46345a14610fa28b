import { describe, expect, it } from 'vitest';
import { MusterError } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import type { McpElicitationRequest, McpEvent } from '../../src/mcp/mcp-entry.js';
import { stdioConfig } from '../support/mcp-fixtures.js';

// Retries, listen, URL-mode elicitation and input_required against a real stdio fixture
// (test/fixtures/mcp/features-server.mjs), through the standalone McpClientManager.

const features = (modern = false) =>
  stdioConfig('features-server.mjs', modern ? ['--modern-only'] : []);
/** The legacy era, where servers send requests of their own (elicitation/create). */
const legacy = { mode: 'legacy' } as const;
const retry = { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20 };

async function counts(m: McpClientManager): Promise<Record<string, number>> {
  const r = await m.callTool('features', 'get-counts', {});
  return JSON.parse((r.content[0] as { text: string }).text) as Record<string, number>;
}

describe('McpClientManager operations on the features fixture', () => {
  it('retries a read that fails twice, only with retry', async () => {
    const m = new McpClientManager({ features: features() }, { strictConfig: true });
    try {
      const first = await m.readResource('features', 'flaky://doc').catch((e: unknown) => e);
      expect(MusterError.isInstance(first) && first.code).toBe('MCP_OPERATION_FAILED');
      expect((await counts(m)).flakyReads).toBe(1);
      const read = await m.readResource('features', 'flaky://doc', { retry });
      expect((read.contents[0] as { text: string }).text).toBe('steady');
      expect((await counts(m)).flakyReads).toBe(3);
    } finally {
      await m.close();
    }
  }, 20_000);

  it('never retries callTool without retryNonIdempotent, and does with it', async () => {
    const m = new McpClientManager({ features: features() }, { strictConfig: true });
    try {
      await m.connectAll();
      const failed = await m
        .callTool('features', 'slow-count', { ms: 400 }, { timeoutMs: 50, retry })
        .catch((e: unknown) => e);
      // a timed-out call may have run: its outcome is unknown, and it is not retried
      expect(MusterError.isInstance(failed) && failed.code).toBe('TOOL_OUTCOME_UNKNOWN');
      expect(MusterError.isInstance(failed) && failed.details['reason']).toBe('timeout');
      expect((await counts(m)).calls).toBe(1);
      await m
        .callTool(
          'features',
          'slow-count',
          { ms: 400 },
          { timeoutMs: 50, retry: { ...retry, retryNonIdempotent: true } },
        )
        .catch(() => undefined);
      expect((await counts(m)).calls).toBe(4);
    } finally {
      await m.close();
    }
  }, 20_000);

  it('never retries an aborted operation', async () => {
    const m = new McpClientManager(
      { features: features() },
      { strictConfig: true, protocol: legacy },
    );
    try {
      await m.ping('features');
      const controller = new AbortController();
      const read = m.readResource('features', 'slow://doc', { signal: controller.signal, retry });
      setTimeout(() => controller.abort(), 50);
      const err = await read.catch((e: unknown) => e);
      expect(MusterError.isInstance(err) && err.code).toBe('ABORTED');
      // a retry would have been sent before the rejection (requests share one ordered pipe),
      // so the count asked for after it is final; the backoff abort is pinned in retry.test.ts
      expect((await counts(m)).slowReads).toBe(1);
    } finally {
      await m.close();
    }
  }, 20_000);

  it('listen on a modern connection receives a tools-list-changed notice', async () => {
    const m = new McpClientManager({ features: features(true) }, { strictConfig: true });
    try {
      await m.connectAll();
      expect(m.getConnection('features').era).toBe('modern');
      const sub = await m.listen('features', { toolsListChanged: true });
      const it = sub.events[Symbol.asyncIterator]();
      const next = it.next();
      await m.callTool('features', 'add-tool', {});
      expect((await next).value).toMatchObject({
        server: 'features',
        method: 'notifications/tools/list_changed',
      });
      await sub.close();
      expect((await it.next()).done).toBe(true);
    } finally {
      await m.close();
    }
  }, 20_000);

  it('URL-mode elicitation: the URL goes to the handler, completion becomes an event', async () => {
    const seen: McpElicitationRequest[] = [];
    const events: McpEvent[] = [];
    const m = new McpClientManager(
      { features: features() },
      {
        strictConfig: true,
        protocol: legacy,
        handlers: {
          elicitation: async (req) => {
            seen.push(req);
            return { action: 'accept' };
          },
        },
        onEvent: (e) => events.push(e),
      },
    );
    try {
      const r = await m.callTool('features', 'ask-url', {});
      expect((r.content[0] as { text: string }).text).toBe('url answer: accept');
      expect(seen[0]).toMatchObject({
        mode: 'url',
        url: 'https://example.com/link?token=secret-canary-url',
        elicitationId: 'e-1',
      });
      for (
        let i = 0;
        i < 40 &&
        !events.some(
          (e) => e.type === 'elicitation.completed' && 'via' in e && e.via === 'notification',
        );
        i++
      )
        await new Promise((r) => setTimeout(r, 25));
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'elicitation.completed',
          via: 'notification',
          elicitationId: 'e-1',
        }),
      );
      expect(JSON.stringify(events)).not.toContain('secret-canary-url');
    } finally {
      await m.close();
    }
  }, 20_000);

  it('a modern input_required result is answered by the same elicitation handler', async () => {
    const seen: McpElicitationRequest[] = [];
    const m = new McpClientManager(
      { features: features(true) },
      {
        strictConfig: true,
        handlers: {
          elicitation: async (req) => {
            seen.push(req);
            return { action: 'accept', content: { ok: true } };
          },
        },
      },
    );
    try {
      const r = await m.callTool('features', 'confirm', {});
      expect(m.getConnection('features').era).toBe('modern');
      expect((r.content[0] as { text: string }).text).toBe('confirmed: {"ok":true}');
      expect(seen[0]).toMatchObject({ server: 'features', mode: 'form', message: 'Confirm?' });
    } finally {
      await m.close();
    }
  }, 20_000);

  it('a handler that runs past mcp.handlerTimeoutMs answers the server with an error', async () => {
    const m = new McpClientManager(
      { features: features(true) },
      {
        strictConfig: true,
        handlerTimeoutMs: 100,
        handlers: { elicitation: () => new Promise(() => undefined) },
      },
    );
    try {
      const err = await m.callTool('features', 'confirm', {}).then(
        (r) => JSON.stringify(r),
        (e: Error) => e.message,
      );
      expect(err).toMatch(/handlerTimeoutMs|did not answer/);
      await m.ping('features');
    } finally {
      await m.close();
    }
  }, 20_000);

  it('disconnectAll closes connections; the next operation reconnects', async () => {
    const m = new McpClientManager({ features: features() }, { strictConfig: true });
    try {
      await m.connectAll();
      await m.disconnectAll();
      expect(m.getConnection('features').status).toBe('pending');
      expect(m.list()[0]!.tools).toEqual([]);
      await m.ping('features');
      expect(m.getConnection('features').status).toBe('connected');
    } finally {
      await m.close();
    }
  }, 20_000);

  it('disconnectAll during a connect waits for it, and the server does not show connected', async () => {
    const m = new McpClientManager({ features: features() }, { strictConfig: true });
    try {
      const connecting = m.connectAll();
      await m.disconnectAll();
      await connecting;
      expect(m.getConnection('features').status).toBe('pending');
      expect(m.list()[0]!.tools).toEqual([]);
      await m.ping('features');
      expect(m.getConnection('features').status).toBe('connected');
    } finally {
      await m.close();
    }
  }, 20_000);

  it('reports the tasks extension as supported, naming the legacy limit; skills as unsupported', async () => {
    const { getMcpExtensionSupport, assertMcpExtensionSupported } =
      await import('../../src/mcp/mcp-entry.js');
    const tasks = getMcpExtensionSupport('tasks');
    expect(tasks).toMatchObject({ supported: true });
    expect(tasks.reason).toContain('2026-07-28');
    expect(tasks.reason).toContain('Legacy connections');
    expect(() => assertMcpExtensionSupported('tasks')).not.toThrow();
    expect(() => assertMcpExtensionSupported('skills')).toThrow(
      expect.objectContaining({ code: 'MCP_EXTENSION_UNSUPPORTED' }),
    );
    expect(() => assertMcpExtensionSupported('elicitation')).not.toThrow();
  });
});
