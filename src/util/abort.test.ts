import { getEventListeners } from 'node:events';
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

  it('puts one listener on a source however many targets follow it', () => {
    const source = new AbortController();
    const targets = Array.from({ length: 20 }, () => new AbortController());
    const stops = targets.map((t) => followAbort(t, [source.signal]));
    expect(getEventListeners(source.signal, 'abort')).toHaveLength(1);
    stops[0]!();
    source.abort('gone');
    expect(targets[0]!.signal.aborted).toBe(false);
    expect(targets.slice(1).every((t) => t.signal.reason === 'gone')).toBe(true);
    for (const stop of stops) stop();
  });

  it('keeps one listener on a source between followers, holding none of them', () => {
    const source = new AbortController();
    const first = new AbortController();
    followAbort(first, [source.signal])();
    expect(getEventListeners(source.signal, 'abort')).toHaveLength(1);
    const late = new AbortController();
    const stop = followAbort(late, [source.signal]);
    expect(getEventListeners(source.signal, 'abort')).toHaveLength(1);
    source.abort('now');
    expect(late.signal.reason).toBe('now');
    expect(first.signal.aborted).toBe(false);
    stop();
  });
});
