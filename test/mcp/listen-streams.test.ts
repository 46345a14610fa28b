import { describe, expect, it } from 'vitest';
import { MusterError } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import type { McpNotice } from '../../src/mcp/mcp-entry.js';
import { NoticeQueue } from '../../src/mcp/operations/notice-queue.js';
import { stdioConfig } from '../support/mcp-fixtures.js';

// listen() streams end when their connection goes, never hang, clean up partial
// subscriptions, and are bounded.

const features = (modern = false) =>
  stdioConfig('features-server.mjs', modern ? ['--modern-only'] : []);

async function drain(events: AsyncIterable<McpNotice>): Promise<unknown> {
  try {
    for await (const _ of events) {
      // nothing expected
    }
    return 'ended';
  } catch (err) {
    return err;
  }
}

describe('listen() streams', () => {
  it.each(['disconnectAll', 'close', 'unregister'] as const)(
    'a pending for-await ends with MCP_DISCONNECTED on %s',
    async (how) => {
      const m = new McpClientManager({ features: features(true) }, { strictConfig: true });
      try {
        const sub = await m.listen('features', { toolsListChanged: true });
        const drained = drain(sub.events);
        if (how === 'disconnectAll') await m.disconnectAll();
        else if (how === 'close') await m.close();
        else await m.unregister('features');
        const err = await drained;
        expect(MusterError.isInstance(err) && err.code).toBe('MCP_DISCONNECTED');
      } finally {
        await m.close();
      }
    },
    20_000,
  );

  it('closing the stream itself ends it normally', async () => {
    const m = new McpClientManager({ features: features(true) }, { strictConfig: true });
    try {
      const sub = await m.listen('features', { toolsListChanged: true });
      const drained = drain(sub.events);
      await sub.close();
      expect(await drained).toBe('ended');
    } finally {
      await m.close();
    }
  }, 20_000);

  it('a subscription failing partway unsubscribes the URIs it had subscribed', async () => {
    const m = new McpClientManager(
      { features: features() },
      { strictConfig: true, protocol: { mode: 'legacy' } },
    );
    try {
      const err = await m
        .listen('features', { resourceSubscriptions: ['flaky://doc', 'fail://x'] })
        .catch((e: unknown) => e);
      expect(MusterError.isInstance(err)).toBe(true);
      const r = await m.callTool('features', 'get-counts', {});
      const counts = JSON.parse((r.content[0] as { text: string }).text) as {
        subscribed: string[];
      };
      expect(counts.subscribed).toEqual([]);
      const ok = await m.listen('features', { resourceSubscriptions: ['flaky://doc'] });
      const again = await m.callTool('features', 'get-counts', {});
      expect((again.content[0] as { text: string }).text).toContain('"subscribed":["flaky://doc"]');
      await ok.close();
    } finally {
      await m.close();
    }
  }, 20_000);
});

describe('NoticeQueue', () => {
  const notice = (i: number): McpNotice => ({ server: 's', method: `m${i}` });

  it('fails with queue-overflow past its limit, after yielding what it held', async () => {
    let overflowed = 0;
    const q = new NoticeQueue('s', 2, () => overflowed++);
    for (let i = 0; i < 5; i++) q.push(notice(i));
    expect(overflowed).toBe(1);
    const it = q[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual(notice(0));
    expect((await it.next()).value).toEqual(notice(1));
    const err = await it.next().catch((e: unknown) => e);
    expect(MusterError.isInstance(err) && err.details['reason']).toBe('queue-overflow');
  });
});
