import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../model/index.js';
import { deepFreeze } from '../util/index.js';
import { MemorySessionStore } from './memory-session-store.js';
import type { SessionState } from './session-store.js';

function newState(messages: ModelMessage[] = []): SessionState {
  return {
    id: 's1',
    status: 'running',
    messages,
    iteration: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    archiveRefs: [],
    startedCalls: [],
  };
}

function userText(text: string): { role: 'user'; content: { type: 'text'; text: string }[] } {
  return { role: 'user', content: [{ type: 'text', text }] };
}

describe('MemorySessionStore isolation', () => {
  it('keeps a deep-frozen message as it is, without a copy', async () => {
    const store = new MemorySessionStore();
    await store.create(newState());
    const built = deepFreeze(userText('hi'));
    await store.update('s1', { appendMessages: [built] });
    expect((await store.get('s1'))!.messages[0]).toBe(built);
  });

  it('copies what the caller hands in: changing it later changes nothing stored', async () => {
    const store = new MemorySessionStore();
    const first = userText('first');
    const state = newState([first]);
    await store.create(state);
    const appended = userText('second');
    await store.update('s1', { appendMessages: [appended] });
    first.content[0]!.text = 'changed';
    appended.content[0]!.text = 'changed';
    appended.content.push({ type: 'text', text: 'more' });
    // a shallowly frozen message is not enough to share: its parts could still change
    const shallow = Object.freeze(userText('third'));
    await store.update('s1', { appendMessages: [shallow] });
    shallow.content[0]!.text = 'changed';
    const stored = (await store.get('s1'))!.messages;
    expect(stored).toEqual([userText('first'), userText('second'), userText('third')]);
  });

  it('returns frozen state: a reader cannot change what is stored', async () => {
    const store = new MemorySessionStore();
    await store.create(newState([userText('a')]));
    await store.update('s1', { addUsage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } });
    const read = (await store.get('s1'))!;
    expect(() => (read.messages as ModelMessage[]).push(userText('b'))).toThrow(TypeError);
    expect(() => {
      (read.messages[0]!.content as unknown as { text: string }[])[0]!.text = 'x';
    }).toThrow(TypeError);
    expect(() => {
      (read.usage as { inputTokens: number }).inputTokens = 9;
    }).toThrow(TypeError);
    expect(() => (read.archiveRefs as string[]).push('r')).toThrow(TypeError);
    const again = (await store.get('s1'))!;
    expect(again.messages).toEqual([userText('a')]);
    expect(again.usage.inputTokens).toBe(1);
    expect(again.archiveRefs).toEqual([]);
  });

  it('a patch whose messages cannot be copied changes nothing', async () => {
    const store = new MemorySessionStore();
    await store.create(newState());
    const bad = { role: 'user', content: [{ type: 'text', text: 'x', f: () => 1 }] };
    await expect(
      store.update('s1', {
        status: 'completed',
        appendMessages: [userText('ok'), bad as unknown as ModelMessage],
      }),
    ).rejects.toThrow();
    const s = (await store.get('s1'))!;
    expect(s.messages).toEqual([]);
    expect(s.status).toBe('running');
  });
});
