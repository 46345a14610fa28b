import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../model/index.js';
import { ContextManager } from './index.js';
import type { ContextCompactedEvent, ContextRequest } from './index.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const answer = (text: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});
const preload = user(`<untrusted-mcp-context>${'u'.repeat(400)}</untrusted-mcp-context>`);

function request(
  events: ContextCompactedEvent[],
  preamble: readonly ModelMessage[],
): ContextRequest {
  return {
    sessionId: 'session-1',
    runId: 'run-1',
    preamble,
    signal: new AbortController().signal,
    emit: (e) => events.push(e),
  };
}

describe('ContextManager preamble', () => {
  it('places the preamble just before the newest user message and leaves the transcript alone', async () => {
    const transcript = [user('old question'), answer('old answer'), user('the real request')];
    const events: ContextCompactedEvent[] = [];
    const sent = await new ContextManager().prepare(transcript, request(events, [preload]));
    expect(sent).toEqual([transcript[0], transcript[1], preload, transcript[2]]);
    expect(transcript).toHaveLength(3);
    expect(events).toHaveLength(0);
  });

  it('under pressure the preamble is pinned and counted, and the newest user message is kept', async () => {
    const transcript = [
      user(`old question ${'o'.repeat(2_000)}`),
      answer('old answer'),
      user('the real request'),
    ];
    const manager = new ContextManager({ maxTokens: 200 });
    const events: ContextCompactedEvent[] = [];
    const sent = await manager.prepare(transcript, request(events, [preload]));
    expect(sent).toEqual([preload, transcript[2]]);
    expect(events).toHaveLength(1);
    // the preamble counts in both sizes: it is sent
    expect(events[0]!.before).toEqual(manager.measure(transcript, undefined, [preload]));
    expect(events[0]!.after).toEqual(manager.measure(sent));
    expect(events[0]!.removedMessages).toBe(2);
  });

  it('under summarize the preamble is never summarized and stays before the newest user message', async () => {
    const seen: ModelMessage[][] = [];
    const transcript = [
      user(`old question ${'o'.repeat(2_000)}`),
      answer('old answer'),
      user('the real request'),
    ];
    const manager = new ContextManager({
      maxTokens: 250,
      summarize: async (messages) => {
        seen.push([...messages]);
        return 'short summary';
      },
    });
    const sent = await manager.prepare(transcript, request([], [preload]));
    expect(seen.flat()).not.toContainEqual(preload);
    expect(sent.slice(-2)).toEqual([preload, transcript[2]]);
    expect(sent[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('short summary'),
    });
  });

  it('fails before sending when the preamble and the newest user message alone are over the limit', async () => {
    const manager = new ContextManager({ maxTokens: 60 });
    await expect(
      manager.prepare([user('the real request')], request([], [preload])),
    ).rejects.toMatchObject({ code: 'AGENT_LIMIT_EXCEEDED' });
  });
});
