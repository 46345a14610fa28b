import { describe, expect, it } from 'vitest';
import { MemoryArchiveStore, newArchiveRef } from './index.js';
import type { ArchiveItemInput } from './index.js';

function textItem(sessionId: string, text = 'hello'): ArchiveItemInput {
  return {
    sessionId,
    kind: 'text',
    mimeType: 'text/plain',
    bytes: Buffer.byteLength(text),
    text,
    toolName: 'search',
    callId: 'call_1',
  };
}

describe('newArchiveRef', () => {
  it('makes random base36 refs with the ref_ prefix', () => {
    const refs = new Set(Array.from({ length: 200 }, () => newArchiveRef()));
    expect(refs.size).toBe(200);
    for (const ref of refs) expect(ref).toMatch(/^ref_[0-9a-z]{10,}$/);
  });
});

describe('MemoryArchiveStore', () => {
  it('assigns a ref and createdAt and returns the item by session and ref', async () => {
    const store = new MemoryArchiveStore();
    const before = Date.now();
    const item = await store.put(textItem('s1'));
    expect(item).toMatchObject({
      ...textItem('s1'),
      ref: expect.stringMatching(/^ref_[0-9a-z]+$/),
    });
    expect(Date.parse(item.createdAt)).toBeGreaterThanOrEqual(before - 1);
    expect(new Date(item.createdAt).toISOString()).toBe(item.createdAt);
    expect(await store.get('s1', item.ref)).toEqual(item);
    expect(Object.isFrozen(item)).toBe(true);
  });

  it('keeps binary items', async () => {
    const store = new MemoryArchiveStore();
    const data = Buffer.from([0, 1, 2, 255]).toString('base64');
    const item = await store.put({
      sessionId: 's1',
      kind: 'binary',
      mimeType: 'image/png',
      bytes: 4,
      data,
      toolName: 'shot',
      callId: 'c',
    });
    expect(await store.get('s1', item.ref)).toMatchObject({ kind: 'binary', data, bytes: 4 });
  });

  it('scopes refs to their session', async () => {
    const store = new MemoryArchiveStore();
    const mine = await store.put(textItem('s1'));
    expect(await store.get('s2', mine.ref)).toBeUndefined();
    expect(await store.get('s1', 'ref_unknown')).toBeUndefined();
    expect(await store.get('', mine.ref)).toBeUndefined();
  });

  it('lists a session oldest first, and deletes a session', async () => {
    const store = new MemoryArchiveStore();
    const a = await store.put(textItem('s1', 'a'));
    const b = await store.put(textItem('s1', 'b'));
    const other = await store.put(textItem('s2', 'c'));
    expect((await store.list('s1')).map((i) => i.ref)).toEqual([a.ref, b.ref]);
    expect(await store.list('nobody')).toEqual([]);
    await store.deleteSession('s1');
    await store.deleteSession('s1');
    expect(await store.list('s1')).toEqual([]);
    expect(await store.get('s1', a.ref)).toBeUndefined();
    expect(await store.get('s2', other.ref)).toEqual(other);
  });

  it('keeps at most maxBytesPerSession per session, dropping the oldest first', async () => {
    const store = new MemoryArchiveStore({ maxBytesPerSession: 10 });
    const a = await store.put(textItem('s1', 'aaaa'));
    const b = await store.put(textItem('s1', 'bbbb'));
    const other = await store.put(textItem('s2', 'zzzzzzzzzz'));
    const c = await store.put(textItem('s1', 'cccc')); // 12 bytes would be over: 'aaaa' goes
    expect((await store.list('s1')).map((i) => i.text)).toEqual(['bbbb', 'cccc']);
    expect(await store.get('s1', a.ref)).toBeUndefined();
    expect(await store.wasEvicted('s1', a.ref)).toBe(true);
    expect(await store.wasEvicted('s1', b.ref)).toBe(false);
    expect(await store.wasEvicted('s2', a.ref)).toBe(false);
    expect(await store.get('s1', c.ref)).toBeDefined();
    expect(await store.get('s2', other.ref)).toBeDefined(); // another session's budget is its own
  });

  it('refuses an item larger than the bound, and a bound that is not a positive integer', async () => {
    const store = new MemoryArchiveStore({ maxBytesPerSession: 3 });
    await expect(store.put(textItem('s1', 'abcd'))).rejects.toMatchObject({
      code: 'TOOL_RESULT_TOO_LARGE',
    });
    for (const bad of [0, -1, 1.5, Number.NaN])
      expect(() => new MemoryArchiveStore({ maxBytesPerSession: bad })).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
      );
  });
});
