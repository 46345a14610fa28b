/**
 * A run's event log with its guarded store, without a model: a patch that cannot be changed
 * still carries the events, and a store that keeps refusing the log's own commits is not asked
 * again at every turn of the event loop.
 */
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../src/session/index.js';
import type { SessionPatch, SessionWriteOptions } from '../../src/session/index.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { RunEventLog } from '../../src/agent/run-event-log.js';
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

describe('a run event log', () => {
  it('puts its events on a copy of a frozen patch, and the next commit is not held up', async () => {
    const store = new MemorySessionStore();
    await session(store);
    const published: AgentEvent[] = [];
    const guarded = guardedStore(store, undefined, undefined, () => log);
    const log: RunEventLog = RunEventLog.open(
      store,
      0,
      false,
      (e) => published.push(e),
      () => guarded.update('s', {}),
    );
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

  it('backs off when its own commits keep failing, instead of one per turn of the event loop', async () => {
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
    for (let i = 0; i < 50; i++) await turn();
    // the first try is at once; the next waits 100 ms, whatever the turns in between
    expect(refused).toBe(1);
    log.close();
  });
});
