import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventsOf, toolName } from './support/fault-agent.js';
import { expectSurvived, runCallFault } from './support/fault-case.js';
import { startFaultyHttp } from './support/faulty-servers.js';
import type { FaultyHttp, FaultyHttpFault } from './support/faulty-servers.js';
import { measured, within } from './support/fault-timing.js';
import { FAST_RECONNECT } from './support/pending-options.js';

// Streamable HTTP servers that misbehave during a call: answers over mcp.maxResponseBytes
// (JSON and SSE), floods, expired sessions (404 and 400), connections reset before the
// response, in the middle of a JSON body and in the middle of an SSE event, and a server
// that refuses connections before the request is sent.

const LONG = { timeoutMs: 30_000 };
let fixture: FaultyHttp;
beforeEach(async () => {
  fixture = await startFaultyHttp({ name: 'faulty-http' });
});
afterEach(() => fixture.close());

const server = () => ({ type: 'http' as const, url: fixture.url });
const postsOf = (method: string) => fixture.requests.filter((r) => r === `POST ${method}`);

describe('an HTTP response over mcp.maxResponseBytes', () => {
  it.each([
    ['a JSON body', false],
    ['an SSE event', true],
  ])('in %s fails the call with TOOL_RESULT_TOO_LARGE, promptly', async (_label, stream) => {
    const run = await runCallFault({
      server: server(),
      tool: 'big',
      args: { bytes: 1_000_000, stream },
      mcp: { operation: LONG, maxResponseBytes: 256 * 1024 },
    });
    try {
      expect(run.fault.completed.event).toMatchObject({
        isError: true,
        errorCode: 'TOOL_RESULT_TOO_LARGE',
      });
      expect(run.fault.completed.event.content).toMatch(/maxResponseBytes/);
      expect(
        measured(`oversized response (${stream ? 'SSE' : 'HTTP JSON'})`, run.fault.ms),
      ).toBeLessThan(5_000);
      expect(fixture.counts.calls['big']).toBe(1);
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });
});

describe('an HTTP server that floods its SSE stream', () => {
  it('10 000 progress and 10 000 log notifications: the call completes, the host keeps up', async () => {
    const run = await runCallFault({
      server: server(),
      tool: 'flood',
      args: { count: 10_000 },
      mcp: { operation: LONG },
    });
    try {
      expect(run.fault.completed.event).toMatchObject({ isError: false, content: 'flood done' });
      expect(measured('notification flood (SSE)', run.fault.ms)).toBeLessThan(20_000);
      const progress = eventsOf(run.log, 'tool.progress').filter(
        (p) => p.toolName === toolName('f', 'flood'),
      );
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.length).toBeLessThanOrEqual(10_000);
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });
});

describe('an expired HTTP session', () => {
  it.each([
    ['404 (session not found)', 'expire-404' as const],
    ['400 ("No valid session ID provided")', 'expire-400' as const],
  ])('answered %s: a fresh session, and the call runs exactly once', async (_label, fault) => {
    const run = await runCallFault({
      server: server(),
      tool: 'count',
      beforeFault: () => fixture.arm(fault),
      mcp: { operation: LONG },
    });
    try {
      expect(run.fault.completed.event).toMatchObject({ isError: false, content: 'call 1' });
      expect(measured(`session expiry ${fault.slice(-3)}`, run.fault.ms)).toBeLessThan(3_000);
      expect(fixture.counts.calls['count']).toBe(1);
      expect(postsOf('tools/call')).toHaveLength(3); // echo, the refused count, its re-send
      expect(fixture.counts.initialize).toBe(2);
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });
});

describe('a connection reset after the request was sent', () => {
  const faults: [string, FaultyHttpFault][] = [
    ['reset (RST) before the response', 'reset-before-headers'],
    ['closed (FIN) before the response', 'close-before-headers'],
    ['reset in the middle of a JSON body', 'reset-mid-body'],
    ['reset in the middle of an SSE event', 'reset-mid-sse'],
  ];
  // with reconnect.enabled a request that was not sent is sent again: a reset misread as
  // "not sent" would run twice
  const policies = [
    ['', undefined],
    [', with mcp.reconnect.enabled', FAST_RECONNECT],
  ] as const;
  const cases = faults.flatMap(([label, fault]) =>
    policies.map(([suffix, reconnect]) => [`${label}${suffix}`, fault, reconnect] as const),
  );
  it.each(cases)(
    '%s: TOOL_OUTCOME_UNKNOWN at once, never "not sent", never re-sent',
    async (_label, fault, reconnect) => {
      const run = await runCallFault({
        server: server(),
        tool: 'count',
        beforeFault: () => fixture.arm(fault),
        mcp: { operation: LONG, ...(reconnect ? { reconnect } : {}) },
      });
      try {
        const completed = run.fault.completed.event;
        expect(completed).toMatchObject({ isError: true, errorCode: 'TOOL_OUTCOME_UNKNOWN' });
        expect(completed.content).not.toMatch(/not sent/);
        expect(measured(`${fault}${reconnect ? ' +reconnect' : ''}`, run.fault.ms)).toBeLessThan(
          3_000,
        );
        expect(fixture.counts.calls['count']).toBe(1); // it did run on the server
        expect(postsOf('tools/call')).toHaveLength(2); // echo, count: never re-sent
        await expectSurvived(run);
      } finally {
        await run.agent.close();
      }
    },
  );
});

describe('a connection refused before the request was sent', () => {
  it('is "not sent" (nothing ran); the next run reconnects with no host action', async () => {
    const run = await runCallFault({
      server: server(),
      tool: 'count',
      beforeFault: () => fixture.stop(),
      mcp: { operation: LONG },
    });
    try {
      const completed = run.fault.completed.event;
      expect(completed).toMatchObject({
        isError: true,
        errorCode: 'TOOL_EXECUTION_FAILED',
        executed: false,
      });
      expect(completed.content).toMatch(/not sent/);
      expect(measured('refused before send', run.fault.ms)).toBeLessThan(3_000);
      expect(fixture.counts.calls['count']).toBeUndefined();
      await fixture.start();
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });

  it('with mcp.reconnect.enabled, is sent once on the new connection and runs exactly once', async () => {
    let restarted: Promise<void> | undefined;
    const run = await runCallFault({
      server: server(),
      tool: 'count',
      mcp: {
        operation: LONG,
        reconnect: FAST_RECONNECT,
      },
      beforeFault: async (log) => {
        await fixture.stop();
        // the server comes back once Muster has noticed the loss
        restarted = log.status('f', 'reconnecting').then(() => fixture.start());
      },
    });
    try {
      await within(restarted!, 10_000, 'the restart after reconnecting');
      expect(run.fault.completed.event).toMatchObject({ isError: false, content: 'call 1' });
      expect(measured('refused before send +reconnect', run.fault.ms)).toBeLessThan(5_000);
      expect(fixture.counts.calls['count']).toBe(1);
      expect(postsOf('tools/call')).toHaveLength(2); // echo before the stop, count once after
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });
});
