import { describe, expect, it } from 'vitest';
import { followAbort } from './abort.js';

describe('followAbort', () => {
  it('aborts the target with the first source reason and stops following on request', () => {
    const target = new AbortController();
    const a = new AbortController();
    const b = new AbortController();
    const stop = followAbort(target, [a.signal, undefined, b.signal]);
    b.abort('b went');
    expect(target.signal.aborted).toBe(true);
    expect(target.signal.reason).toBe('b went');
    a.abort('a went');
    expect(target.signal.reason).toBe('b went');
    stop();
  });

  it('aborts at once when a source has aborted already', () => {
    const target = new AbortController();
    const stop = followAbort(target, [AbortSignal.abort('early')]);
    expect(target.signal.reason).toBe('early');
    stop();
  });

  it('leaves no listener on a source once stopped', () => {
    const target = new AbortController();
    const source = new AbortController();
    const stop = followAbort(target, [source.signal]);
    stop();
    source.abort('late');
    expect(target.signal.aborted).toBe(false);
  });
});
