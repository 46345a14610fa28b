/**
 * The memory store's event log as a reader and a writer other than the run see it: records are
 * plain values, numbers are whole, and entries a caller hands in are copied.
 */
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../src/session/memory-session-store.js';
import { sessionState } from '../support/session-state.js';

async function storeWith(events: number, max?: number): Promise<MemorySessionStore> {
  const store = new MemorySessionStore(max === undefined ? {} : { eventLogMaxPerSession: max });
  await store.create(sessionState('s', { status: 'idle' }));
  for (let i = 1; i <= events; i++)
    await store.appendEvents('s', [{ type: 't', json: JSON.stringify({ type: 't', n: i }) }]);
  return store;
}

describe('the memory event log', () => {
  it('reads plain records: a copy or a JSON round trip keeps type and json', async () => {
    const store = await storeWith(2);
    const records = await store.readEvents('s', { afterSeq: 0 });
    expect(records.map((r) => ({ ...r }))).toEqual([
      { seq: 1, type: 't', json: '{"seq":1,"type":"t","n":1}' },
      { seq: 2, type: 't', json: '{"seq":2,"type":"t","n":2}' },
    ]);
    expect(JSON.parse(JSON.stringify(records))).toEqual(records.map((r) => ({ ...r })));
  });

  it('numbers whole: a fractional afterSeq reads from the next whole one, NaN reads nothing', async () => {
    const store = await storeWith(4);
    expect((await store.readEvents('s', { afterSeq: 1.5 })).map((r) => r.seq)).toEqual([2, 3, 4]);
    expect(await store.readEvents('s', { afterSeq: Number.NaN })).toEqual([]);
  });

  it('pages from the oldest kept event when afterSeq is in the dropped part', async () => {
    const store = await storeWith(12, 5);
    expect((await store.readEvents('s', { afterSeq: 0 })).map((r) => r.seq)).toEqual([
      8, 9, 10, 11, 12,
    ]);
    expect((await store.readEvents('s', { afterSeq: 9, limit: 2 })).map((r) => r.seq)).toEqual([
      10, 11,
    ]);
    expect(await store.readEvents('s', { afterSeq: 12 })).toEqual([]);
  });

  it("copies a caller's entry: changing it after the commit changes nothing", async () => {
    const store = await storeWith(0);
    const entry = { type: 't', json: '{"type":"t","v":1}' };
    await store.appendEvents('s', [entry]);
    entry.json = '{"type":"t","v":2}';
    expect((await store.readEvents('s', { afterSeq: 0 }))[0]!.json).toBe(
      '{"seq":1,"type":"t","v":1}',
    );
  });
});
