import { describe, expect, it } from 'vitest';
import { createPoller } from './poller.js';
import type { PollTimers } from './poller.js';

/** Reads that end when the test says so, and timers the test fires. */
function harness(hidden = false) {
  const reads: (() => void)[] = [];
  const due: { run: () => void; ms: number }[] = [];
  const state = { hidden };
  const timers: PollTimers = {
    set: (run, ms) => {
      const t = { run, ms };
      due.push(t);
      return t;
    },
    clear: (handle) => {
      const i = due.indexOf(handle as (typeof due)[number]);
      if (i >= 0) due.splice(i, 1);
    },
  };
  const poller = createPoller({
    load: () => new Promise<void>((resolve) => reads.push(resolve)),
    intervalMs: 3000,
    hidden: () => state.hidden,
    timers,
  });
  /** Ends the oldest read and lets its continuation run. */
  const finish = async () => {
    reads.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  const fire = () => due.shift()!.run();
  return { poller, reads, due, state, finish, fire };
}

describe('createPoller', () => {
  it('never starts a read while one is in flight: refreshes meanwhile make one more after it', async () => {
    const h = harness();
    h.poller.start();
    expect(h.reads).toHaveLength(1);
    // the server is slow: the poll's timer is not armed while the read runs, refreshes wait
    h.poller.refresh();
    h.poller.refresh();
    h.poller.refresh();
    expect(h.reads).toHaveLength(1);
    expect(h.due).toHaveLength(0);
    await h.finish();
    expect(h.reads).toHaveLength(1);
    expect(h.due).toHaveLength(0);
    await h.finish();
    // nothing asked meanwhile: the next poll is due an interval after the read ended
    expect(h.reads).toHaveLength(0);
    expect(h.due.map((t) => t.ms)).toEqual([3000]);
    h.fire();
    expect(h.reads).toHaveLength(1);
    h.poller.stop();
    await h.finish();
    expect(h.due).toHaveLength(0);
  });

  it('a failed read does not stop the polling', async () => {
    const due: (() => void)[] = [];
    let reads = 0;
    const poller = createPoller({
      load: async () => {
        reads++;
        throw new Error('the studio is gone');
      },
      intervalMs: 3000,
      hidden: () => false,
      timers: { set: (run) => due.push(run), clear: () => undefined },
    });
    poller.start();
    await new Promise((r) => setImmediate(r));
    expect(due).toHaveLength(1);
    due.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(reads).toBe(2);
    poller.stop();
  });

  it('does not poll while the page is hidden, and reads at once when it is shown again', async () => {
    const h = harness();
    h.poller.start();
    await h.finish();
    h.state.hidden = true;
    h.poller.visibilityChanged();
    h.fire();
    expect(h.reads).toHaveLength(0);
    expect(h.due).toHaveLength(0);
    h.state.hidden = false;
    h.poller.visibilityChanged();
    expect(h.reads).toHaveLength(1);
    // shown while a poll is due anyway: no extra read
    await h.finish();
    h.poller.visibilityChanged();
    expect(h.reads).toHaveLength(0);
    expect(h.due).toHaveLength(1);
    h.poller.stop();
    expect(h.due).toHaveLength(0);
  });
});
