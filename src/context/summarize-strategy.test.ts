import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../model/index.js';
import { ContextManager } from './index.js';
import type { ContextCompactedEvent, ContextRequest, ContextSummarizer } from './index.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const answer = (text: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});

function request(events: ContextCompactedEvent[] = [], signal = new AbortController().signal) {
  return {
    sessionId: 's',
    runId: 'r',
    signal,
    emit: (e: ContextCompactedEvent) => events.push(e),
  } satisfies ContextRequest;
}

/** A host summarizer that records what it was given and answers with a short text. */
function recordingSummarizer(reply = (n: number) => `summary #${n}`) {
  const calls: (readonly ModelMessage[])[] = [];
  const summarize: ContextSummarizer = async (messages, { signal }) => {
    expect(signal).toBeInstanceOf(AbortSignal);
    calls.push(messages);
    return reply(calls.length);
  };
  return { calls, summarize };
}

/** `turns` question/answer pairs of ~400 bytes each. */
function chat(turns: number): ModelMessage[] {
  return Array.from({ length: turns }, (_, i) => [
    user(`question ${i} ${'q'.repeat(200)}`),
    answer(`answer ${i} ${'a'.repeat(200)}`),
  ]).flat();
}

describe('ContextManager, summarize', () => {
  it('replaces the oldest turns with one system message holding the summary', async () => {
    const { calls, summarize } = recordingSummarizer();
    const manager = new ContextManager({ maxTokens: 400, summarize });
    const transcript = [{ role: 'system', content: 'Be kind.' } as const, ...chat(6)];
    const events: ContextCompactedEvent[] = [];
    const sent = await manager.prepare(transcript, request(events));
    expect(calls).toHaveLength(1);
    const summarized = calls[0]!;
    // the summarizer saw exactly the left-out messages, oldest first
    expect(summarized).toEqual(transcript.slice(1, 1 + summarized.length));
    expect(sent[0]).toBe(transcript[0]);
    expect(sent[1]).toEqual({
      role: 'system',
      content: `Summary of the ${summarized.length} earliest messages of this conversation, which are not shown:\nsummary #1`,
    });
    expect(sent.slice(2)).toEqual(transcript.slice(1 + summarized.length));
    expect(sent.at(-1)).toBe(transcript.at(-1));
    expect(events).toEqual([
      expect.objectContaining({
        type: 'context.compacted',
        strategy: 'summarize',
        before: manager.measure(transcript),
        after: manager.measure(sent),
        removedMessages: summarized.length,
        summarized: true,
      }),
    ]);
    expect(manager.measure(sent).tokens).toBeLessThanOrEqual(400);
  });

  it('reuses the summary while it covers the same messages, and extends it when more must go', async () => {
    const { calls, summarize } = recordingSummarizer();
    const manager = new ContextManager({ maxTokens: 400, summarize });
    const transcript = chat(6);
    const events: ContextCompactedEvent[] = [];
    const first = await manager.prepare(transcript, request(events));
    const made = calls.length;
    const again = await manager.prepare(transcript, request(events));
    expect(again).toEqual(first);
    expect(calls).toHaveLength(made);
    expect(events.map((e) => e.summarized)).toEqual([true, false]);
    const covered = first.length === transcript.length ? 0 : events[0]!.removedMessages;
    transcript.push(...chat(2));
    await manager.prepare(transcript, request(events));
    expect(calls).toHaveLength(made + 1);
    const extended = calls[made]!;
    // the previous summary leads, then only the newly left-out messages
    expect(extended[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining(`summary #${made}`),
    });
    expect(extended.slice(1)).toEqual(transcript.slice(covered, covered + extended.length - 1));
    // another session gets its own summary
    await manager.prepare(chat(6), { ...request(), sessionId: 'another' });
    expect(calls.length).toBeGreaterThan(made + 1);
  });

  it('summarizes again when the summary itself pushes more messages out', async () => {
    const { calls, summarize } = recordingSummarizer((n) => (n === 1 ? 's'.repeat(600) : 'short'));
    const manager = new ContextManager({ maxTokens: 450, summarize });
    const transcript = chat(6);
    const sent = await manager.prepare(transcript, request());
    expect(calls).toHaveLength(2);
    expect(calls[1]!.length).toBeGreaterThan(1);
    expect(sent.some((m) => m.role === 'system' && m.content.endsWith('\nshort'))).toBe(true);
    expect(manager.measure(sent).tokens).toBeLessThanOrEqual(450);
  });

  it('fails with AGENT_LIMIT_EXCEEDED when the summary never fits', async () => {
    const { summarize } = recordingSummarizer(() => 's'.repeat(4_000));
    const manager = new ContextManager({ maxTokens: 450, summarize });
    await expect(manager.prepare(chat(6), request())).rejects.toMatchObject({
      code: 'AGENT_LIMIT_EXCEEDED',
      details: { reason: 'summary-too-long' },
    });
  });

  it('reports a failing or empty summarizer as AGENT_LIMIT_EXCEEDED with the cause kept, and no secret in the message', async () => {
    const boom = new Error('summarizer down, token sk-canary-123456');
    const failing = new ContextManager({
      maxTokens: 400,
      summarize: async () => Promise.reject(boom),
    });
    const err = await failing.prepare(chat(6), request()).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'AGENT_LIMIT_EXCEEDED',
      details: { reason: 'summarizer-failed' },
    });
    // the cause is kept as a redacted copy of the summarizer's error (its class and message)
    const cause = (err as Error).cause as Error;
    expect(cause).toBeInstanceOf(Error);
    expect(cause.message).toContain('summarizer down');
    expect((err as Error).message).not.toContain('sk-canary');
    expect(inspect(err, { depth: 20 })).not.toContain('sk-canary');
    const empty = new ContextManager({ maxTokens: 400, summarize: async () => '  ' });
    await expect(empty.prepare(chat(6), request())).rejects.toMatchObject({
      code: 'AGENT_LIMIT_EXCEEDED',
      details: { reason: 'summary-empty' },
    });
  });

  it('is aborted by the signal even when the summarizer ignores it', async () => {
    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const manager = new ContextManager({
      maxTokens: 400,
      summarize: () => {
        started();
        return new Promise<string>(() => {});
      },
    });
    const pending = manager.prepare(chat(6), request([], controller.signal));
    await running;
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('does not call the summarizer for a transcript within the limits', async () => {
    const { calls, summarize } = recordingSummarizer();
    const sent = await new ContextManager({ summarize }).prepare(chat(3), request());
    expect(sent).toEqual(chat(3));
    expect(calls).toEqual([]);
  });
});
