import { describe, expect, it } from 'vitest';
import { EventQueue } from './event-queue.js';

describe('EventQueue', () => {
  it('hands items over in order, waiting only when empty, until closed', async () => {
    const q = new EventQueue<number>();
    q.push(1);
    q.push(2);
    expect(q.take()).toBe(1);
    expect(q.take()).toBe(2);
    expect(q.take()).toBeUndefined();
    let woke = false;
    const waiting = q.wait().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    q.push(3);
    await waiting;
    expect(q.take()).toBe(3);
    expect(q.done).toBe(false);
    q.push(4);
    q.close();
    q.push(5); // after close: dropped
    expect(q.done).toBe(false);
    expect(q.take()).toBe(4);
    expect(q.take()).toBeUndefined();
    expect(q.done).toBe(true);
    await q.wait(); // closed: resolves at once
  });
});
