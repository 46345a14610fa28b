import { afterEach, describe, expect, it, vi } from 'vitest';
import { CANCELLED_CALL_MS, InFlightCalls } from './in-flight-calls.js';

const call = (callId: string, signal: AbortSignal) => ({
  sessionId: 's',
  runId: 'r',
  callId,
  signal,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('InFlightCalls', () => {
  it('remembers a cancelled call for a while, so a request it sends later is not taken for background work', () => {
    let now = 1_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const calls = new InFlightCalls();
    const first = new AbortController();
    const end = calls.begin('srv', call('c1', first.signal));
    expect(calls.cancelled('srv')).toBeUndefined();
    first.abort();
    // in flight, cancelled: no live call takes a request, and it is the cancelled call's
    expect(calls.attributed('srv')).toBeUndefined();
    expect(calls.cancelled('srv')).toEqual({ sessionId: 's', runId: 'r', callId: 'c1' });
    end();
    expect(calls.cancelled('srv')).toMatchObject({ callId: 'c1' });
    // another server, or another principal's connection, saw no cancel
    expect(calls.cancelled('other')).toBeUndefined();
    expect(calls.cancelled('srv', 'alice')).toBeUndefined();
    // a live call on the connection takes the requests again
    const endLive = calls.begin('srv', call('c2', new AbortController().signal));
    expect(calls.cancelled('srv')).toBeUndefined();
    expect(calls.attributed('srv')).toMatchObject({ callId: 'c2' });
    endLive();
    // a call that ended without a cancel is not remembered; the cancelled one, until it expires
    expect(calls.cancelled('srv')).toMatchObject({ callId: 'c1' });
    now += CANCELLED_CALL_MS;
    expect(calls.cancelled('srv')).toBeUndefined();
  });
});
