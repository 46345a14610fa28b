import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import type { ModelMessage } from '../model/index.js';
import { BYTES_PER_TOKEN, ContextManager, IMAGE_TOKEN_ESTIMATE } from './index.js';
import type { ContextCompactedEvent, ContextRequest } from './index.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const answer = (text: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});
const call = (callId: string, text = ''): ModelMessage => ({
  role: 'assistant',
  content: [
    { type: 'text', text },
    { type: 'tool-call', callId, name: 'echo', arguments: {} },
  ],
});
const result = (callId: string, content: string): ModelMessage => ({
  role: 'tool',
  callId,
  toolName: 'echo',
  content,
  isError: false,
});

function request(events: ContextCompactedEvent[] = [], system?: string): ContextRequest {
  return {
    sessionId: 'session-1',
    runId: 'run-1',
    system,
    signal: new AbortController().signal,
    emit: (e) => events.push(e),
  };
}

/** Three finished turns, then a new question whose turn has made two tool calls. */
function conversation(big: number): ModelMessage[] {
  return [
    { role: 'system', content: 'You are terse.' },
    user('first question'),
    call('c1'),
    result('c1', 'x'.repeat(big)),
    answer('first answer'),
    user('second question'),
    answer('second answer'),
    user('third question'),
    call('c2'),
    result('c2', 'y'.repeat(big)),
    call('c3'),
    result('c3', 'z'.repeat(big)),
  ];
}

describe('ContextManager', () => {
  it('sends a transcript within the limits as it is, as a new array, with no event', async () => {
    const manager = new ContextManager();
    const transcript = conversation(100);
    const events: ContextCompactedEvent[] = [];
    const sent = await manager.prepare(transcript, request(events));
    expect(sent).toEqual(transcript);
    expect(sent).not.toBe(transcript);
    expect(events).toEqual([]);
    expect(manager.limits).toEqual({ maxTokens: 32_000, maxMessages: 100 });
    expect(manager.strategy).toBe('truncate');
  });

  it('leaves out whole earlier turns, oldest first, and reports the sizes', async () => {
    const transcript = conversation(2_000);
    const probe = new ContextManager();
    const newestTurn = probe.measure([transcript[0]!, ...transcript.slice(7)]);
    const withSecond = probe.measure([transcript[0]!, ...transcript.slice(5)]);
    // room for the newest turn and the short second one, not for the first (with its result)
    const manager = new ContextManager({ maxTokens: withSecond.tokens + 10 });
    const events: ContextCompactedEvent[] = [];
    const sent = await manager.prepare(transcript, request(events));
    expect(sent).toEqual([transcript[0], ...transcript.slice(5)]);
    expect(events).toEqual([
      {
        type: 'context.compacted',
        timestamp: expect.any(String),
        sessionId: 'session-1',
        runId: 'run-1',
        strategy: 'truncate',
        before: manager.measure(transcript),
        after: withSecond,
        removedMessages: 4,
      },
    ]);
    expect(withSecond.tokens).toBeGreaterThan(newestTurn.tokens);
    expect(transcript).toHaveLength(12);
  });

  it('never sends part of an earlier turn', async () => {
    const transcript = conversation(2_000);
    const probe = new ContextManager();
    // enough for the newest turn and the first turn's answer, but not its whole turn
    const newest = probe.measure([transcript[0]!, ...transcript.slice(7)]);
    const manager = new ContextManager({ maxTokens: newest.tokens + 20 });
    const sent = await manager.prepare(transcript, request());
    expect(sent).toEqual([transcript[0], ...transcript.slice(7)]);
  });

  it('drops the oldest steps of the newest turn when it alone is too long, keeping its question and latest results', async () => {
    const transcript = conversation(2_000);
    const manager = new ContextManager({
      maxTokens: new ContextManager().measure(transcript.slice(7)).tokens - 100,
    });
    const sent = await manager.prepare(transcript, request());
    expect(sent).toEqual([transcript[0], transcript[7], transcript[10], transcript[11]]);
  });

  it('counts messages against maxMessages and bytes against maxBytes', async () => {
    const transcript = conversation(10);
    const byCount = await new ContextManager({ maxMessages: 8 }).prepare(transcript, request());
    expect(byCount).toEqual([transcript[0], ...transcript.slice(5)]);
    const probe = new ContextManager().measure([transcript[0]!, ...transcript.slice(5)]);
    const byBytes = await new ContextManager({ maxBytes: probe.bytes }).prepare(
      transcript,
      request(),
    );
    expect(byBytes).toEqual([transcript[0], ...transcript.slice(5)]);
  });

  it('counts the system prompt and keeps every system message wherever it stands', async () => {
    const transcript: ModelMessage[] = [
      user('old'),
      answer('o'.repeat(400)),
      { role: 'system', content: 'mid-conversation instruction' },
      user('new'),
    ];
    const manager = new ContextManager({ maxTokens: 60 });
    expect(await manager.prepare(transcript, request())).toEqual([transcript[2], transcript[3]]);
    const prompt = 'p'.repeat(400);
    await expect(manager.prepare(transcript, request([], prompt))).rejects.toMatchObject({
      code: 'AGENT_LIMIT_EXCEEDED',
    });
  });

  it('fails with AGENT_LIMIT_EXCEEDED before sending when the newest turn cannot fit', async () => {
    const transcript = [user('hi'), call('c1'), result('c1', 'r'.repeat(8_000))];
    const events: ContextCompactedEvent[] = [];
    const err = await new ContextManager({ maxTokens: 1_000 })
      .prepare(transcript, request(events))
      .catch((e: unknown) => e);
    expect(MusterError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({
      code: 'AGENT_LIMIT_EXCEEDED',
      details: { limit: 'context.maxTokens', value: 1_000, reason: 'minimum-over-limit' },
    });
    expect((err as MusterError).details.required).toBeGreaterThan(2_000);
    expect((err as Error).message).toMatch(/raise the context limits/);
    expect(events).toEqual([]);
  });

  it('estimates ~4 bytes per token, counts an image as a flat estimate, or uses the tokenizer', () => {
    const text = user('é'.repeat(100));
    const bytes = Buffer.byteLength(JSON.stringify(text));
    expect(new ContextManager().measure([text])).toEqual({
      messages: 1,
      tokens: Math.ceil(bytes / BYTES_PER_TOKEN),
      bytes,
    });
    const image: ModelMessage = {
      role: 'user',
      content: [{ type: 'image', data: 'A'.repeat(40_000), mimeType: 'image/png' }],
    };
    const sized = new ContextManager().measure([image]);
    expect(sized.bytes).toBeGreaterThan(40_000);
    expect(sized.tokens).toBeLessThan(IMAGE_TOKEN_ESTIMATE + 20);
    expect(sized.tokens).toBeGreaterThanOrEqual(IMAGE_TOKEN_ESTIMATE);
    const seen: string[] = [];
    const counted = new ContextManager({
      tokenizer: (t) => (seen.push(t), t.split(/\s+/).length),
    }).measure([user('one two three'), result('c', 'four five')], 'six');
    expect(counted.tokens).toBe(1 + 3 + 3);
    expect(seen).toEqual(['six', 'one two three', 'echo\nfour five']);
  });

  it('refuses a tokenizer that does not return a whole number', async () => {
    const manager = new ContextManager({ tokenizer: () => Number.NaN });
    await expect(manager.prepare([user('x')], request())).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
  });

  it('refuses bad options with INVALID_CONFIGURATION', () => {
    for (const bad of [
      { maxTokens: 0 },
      { maxMessages: 1.5 },
      { maxBytes: -1 },
      { strategy: 'summarize' as const },
      { strategy: 'truncate' as const, summarize: async () => 'x' },
    ]) {
      expect(() => new ContextManager(bad)).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
      );
    }
    expect(new ContextManager({ summarize: async () => 'x' }).strategy).toBe('summarize');
  });
});
