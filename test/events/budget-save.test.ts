/**
 * A run's budget saved between its step commits (SPEC 15.4), through its guarded store on a
 * real memory store: the save waits for the commits in flight, the commits asked for meanwhile
 * wait for it (so no commit with an older budget lands after a newer one), saves asked for
 * before it took its budget are one, and a failed save is dropped.
 */
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../src/session/index.js';
import type { SessionBudget, SessionPatch, SessionWriteOptions } from '../../src/session/index.js';
import { guardedStore } from '../../src/agent/store-guard.js';
import { sessionState } from '../support/session-state.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A memory store that records each update as `<iteration or save>:<budget tokens>`. */
async function recordingStore() {
  const store = new MemorySessionStore();
  await store.create(sessionState('s'));
  const applied: string[] = [];
  let held: Promise<void> | undefined;
  let fail = false;
  const update = store.update.bind(store);
  store.update = async (id: string, patch: SessionPatch, options?: SessionWriteOptions) => {
    if (patch.iteration === 1 && held) await held;
    if (fail && patch.iteration === undefined) throw new Error('the database is down');
    applied.push(`${patch.iteration ?? 'save'}:${patch.budget?.spent.tokens}`);
    return update(id, patch, options);
  };
  let release!: () => void;
  return {
    store,
    applied,
    hold: () => (held = new Promise<void>((resolve) => (release = resolve))),
    release: () => release(),
    failSaves: () => (fail = true),
  };
}

describe('a budget saved between step commits', () => {
  it('waits for the commit in flight, and the commits asked for meanwhile wait for it', async () => {
    const { store, applied, hold, release } = await recordingStore();
    let tokens = 0;
    const budget = (): SessionBudget => ({
      limits: { maxTotalTokens: 100 },
      spent: { tokens, costUsd: 0, toolCalls: 0, durationMs: 0 },
      warned: [],
    });
    const guarded = guardedStore(store, undefined, undefined, undefined, () => budget());
    hold();
    tokens = 10;
    const first = guarded.update('s', { iteration: 1 });
    guarded.saveBudget('s');
    tokens = 20;
    guarded.saveBudget('s'); // before the first took its budget: the same save
    const second = guarded.update('s', { iteration: 2 });
    await turn();
    expect(applied).toEqual([]);
    release();
    await Promise.all([first, second]);
    await turn();
    expect(applied).toEqual(['1:10', 'save:20', '2:20']);
    expect((await store.get('s'))?.budget?.spent.tokens).toBe(20);
    // asked again once it took its budget: written once more, after it
    tokens = 30;
    guarded.saveBudget('s');
    await Promise.resolve();
    await Promise.resolve();
    tokens = 40;
    guarded.saveBudget('s');
    guarded.saveBudget('s');
    for (let i = 0; i < 5; i++) await turn();
    expect(applied.slice(3)).toEqual(['save:30', 'save:40']);
  });

  it('drops a save the store refuses: the next commit goes on and meets the store itself', async () => {
    const { store, applied, failSaves } = await recordingStore();
    const budget = (): SessionBudget => ({
      limits: { maxTotalTokens: 100 },
      spent: { tokens: 5, costUsd: 0, toolCalls: 0, durationMs: 0 },
      warned: [],
    });
    const guarded = guardedStore(store, undefined, undefined, undefined, () => budget());
    failSaves();
    guarded.saveBudget('s');
    await guarded.update('s', { iteration: 2 });
    expect(applied).toEqual(['2:5']);
  });
});
