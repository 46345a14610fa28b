import { describe, expect, it } from 'vitest';
import { InFlightCalls } from '../../src/mcp/handlers/in-flight-calls.js';
import type { InFlightCall } from '../../src/mcp/handlers/in-flight-calls.js';

const call = (sessionId: string, callId: string): InFlightCall => ({
  sessionId,
  runId: `run-${sessionId}`,
  callId,
  signal: new AbortController().signal,
});

describe('InFlightCalls', () => {
  it('attributes nothing when no call is in flight', () => {
    expect(new InFlightCalls().attributed('s')).toBeUndefined();
  });

  it("attributes to one session's most recent call, per server", () => {
    const calls = new InFlightCalls();
    const first = call('a', 'c1');
    const second = call('a', 'c2');
    calls.begin('s', first);
    const endSecond = calls.begin('s', second);
    calls.begin('other', call('b', 'c3'));
    expect(calls.attributed('s')).toBe(second);
    endSecond();
    expect(calls.attributed('s')).toBe(first);
  });

  it('fails closed while calls of two sessions are in flight, and recovers when one ends', () => {
    const calls = new InFlightCalls();
    const a = call('a', 'c1');
    const endA = calls.begin('s', a);
    const endB = calls.begin('s', call('b', 'c2'));
    expect(calls.attributed('s')).toBeUndefined();
    endB();
    expect(calls.attributed('s')).toBe(a);
    endA();
    expect(calls.attributed('s')).toBeUndefined();
    endA();
    expect(calls.attributed('s')).toBeUndefined();
  });

  it('does not count a call whose run was aborted', () => {
    const calls = new InFlightCalls();
    const aborted = new AbortController();
    const a = call('a', 'c1');
    calls.begin('s', a);
    calls.begin('s', { ...call('b', 'c2'), signal: aborted.signal });
    expect(calls.attributed('s')).toBeUndefined();
    aborted.abort();
    expect(calls.attributed('s')).toBe(a);
  });
});
