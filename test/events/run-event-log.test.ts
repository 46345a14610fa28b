/**
 * A run's event log with its guarded store, without a model: a patch that cannot be changed
 * still carries the events; an event a step commit takes within OWN_FLUSH_DELAY_MS is not
 * committed on its own, one no commit takes is; and a store that keeps refusing the log's own
 * commits is not asked again at every turn of the event loop. The log's timer is faked where
 * its delay decides (no test waits for real time).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemorySessionStore } from '../../src/session/index.js';
import type { SessionPatch, SessionWriteOptions } from '../../src/session/index.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { OWN_FLUSH_DELAY_MS, RunEventLog } from '../../src/agent/run-event-log.js';
import { guardedStore } from '../../src/agent/store-guard.js';
import { sessionState } from '../support/session-state.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function session(store: MemorySessionStore): Promise<void> {
  await store.create(sessionState('s'));
}

const event = (n: number): AgentEvent => ({
  type: 'session.started',
  timestamp: new Date().toISOString(),
  sessionId: 's',
  runId: `run_${n}`,
  continued: false,
  modelName: 'm',
});

/** A memory store that keeps every write, and a run's event log on it. */
async function counted() {
  const store = new MemorySessionStore();
  await session(store);
  const writes: SessionPatch[] = [];
  const update = store.update.bind(store);
  store.update = (id: string, patch: SessionPatch, options?: SessionWriteOptions) => {
    writes.push(patch);
    return update(id, patch, options);
  };
  const published: AgentEvent[] = [];
  const guarded = guardedStore(store, undefined, undefined, () => log);
  const log: RunEventLog = RunEventLog.open(
    store,
    0,
    false,
    (e) => published.push(e),
    () => guarded.update('s', {}),
  );
  return { store, writes, published, guarded, log };
}

describe('a run event log', () => {
  it('puts its events on a copy of a frozen patch, and the next commit is not held up', async () => {
    const { store, published, guarded, log } = await counted();
    log.emit(event(1));
    await guarded.update('s', Object.freeze({ iteration: 1 }) as SessionPatch);
    log.emit(event(2));
    await guarded.update('s', { iteration: 2 });
    expect(published.map((e) => [e.runId, e.seq])).toEqual([
      ['run_1', 1],
      ['run_2', 2],
    ]);
    expect((await store.readEvents('s', { afterSeq: 0 })).map((r) => r.seq)).toEqual([1, 2]);
    log.close();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('an event a step commit takes within the delay rides it: no commit of its own', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { writes, published, guarded, log } = await counted();
    log.emit(event(1));
    // turns of the event loop pass (a call waits for its server) but not the delay
    for (let i = 0; i < 20; i++) await turn();
    await vi.advanceTimersByTimeAsync(OWN_FLUSH_DELAY_MS - 1);
    expect(writes).toHaveLength(0);
    expect(published).toHaveLength(0);
    await guarded.update('s', { iteration: 1 });
    await vi.advanceTimersByTimeAsync(OWN_FLUSH_DELAY_MS * 3);
    expect(writes.map((w) => [w.iteration, w.appendEvents?.length])).toEqual([[1, 1]]);
    expect(published.map((e) => e.seq)).toEqual([1]);
    log.close();
  });

  it('an event no step commit takes is committed on its own once the delay has passed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { store, writes, published, log } = await counted();
    log.emit(event(1));
    await vi.advanceTimersByTimeAsync(OWN_FLUSH_DELAY_MS - 1);
    expect(writes).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes.map((w) => [w.iteration, w.appendEvents?.length])).toEqual([[undefined, 1]]);
    expect(published.map((e) => e.seq)).toEqual([1]);
    expect((await store.readEvents('s', { afterSeq: 0 })).map((r) => r.seq)).toEqual([1]);
    log.close();
  });

  it('once a commit carries its events again, a later event waits the delay, not the back-off', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { store, writes, guarded, log } = await counted();
    const update = store.update.bind(store);
    let down = true;
    store.update = (id: string, patch: SessionPatch, options?: SessionWriteOptions) =>
      down && patch.appendEvents
        ? Promise.reject(new Error('the database is down'))
        : update(id, patch, options);
    log.emit(event(1));
    await vi.advanceTimersByTimeAsync(OWN_FLUSH_DELAY_MS);
    // the flush failed: the next waits 100 ms; the store is back, and a step commit carries it
    down = false;
    await guarded.update('s', { iteration: 1 });
    log.emit(event(2));
    await vi.advanceTimersByTimeAsync(OWN_FLUSH_DELAY_MS);
    expect((await store.readEvents('s', { afterSeq: 0 })).map((r) => r.seq)).toEqual([1, 2]);
    expect(writes.at(-1)?.iteration).toBeUndefined(); // event 2's own flush, not a step commit
    log.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('backs off when its own commits keep failing, instead of one per turn of the event loop', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const store = new MemorySessionStore();
    await session(store);
    let refused = 0;
    const update = store.update.bind(store);
    store.update = (id: string, patch: SessionPatch, options?: SessionWriteOptions) => {
      if (patch.appendEvents) {
        refused++;
        return Promise.reject(new Error('the database is down'));
      }
      return update(id, patch, options);
    };
    const guarded = guardedStore(store, undefined, undefined, () => log);
    const log: RunEventLog = RunEventLog.open(
      store,
      0,
      false,
      () => {},
      () => guarded.update('s', {}),
    );
    log.emit(event(1));
    await vi.advanceTimersByTimeAsync(OWN_FLUSH_DELAY_MS);
    expect(refused).toBe(1);
    // the next try waits 100 ms, whatever the turns in between
    for (let i = 0; i < 50; i++) await turn();
    await vi.advanceTimersByTimeAsync(99);
    expect(refused).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(refused).toBe(2);
    log.close();
  });
});
