import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../model/index.js';
import { ContextManager } from './index.js';
import type { ContextRequest, ContextSummarizer } from './index.js';
import { SummaryMemos } from './summary-memos.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const answer = (text: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});

const request = (sessionId: string, system?: string): ContextRequest => ({
  sessionId,
  runId: 'r',
  system,
  signal: new AbortController().signal,
  emit: () => {},
});

/** Two long old turns, then short recent ones: only the long ones have to go. */
function history(tag: string): ModelMessage[] {
  return [
    user(`${tag} q0 ${'q'.repeat(1_000)}`),
    answer(`${tag} a0 ${'a'.repeat(1_000)}`),
    user(`${tag} q1 ${'q'.repeat(1_000)}`),
    answer(`${tag} a1 ${'a'.repeat(1_000)}`),
    user('q2'),
    answer('a2'),
    user('q3'),
  ];
}

function counting() {
  let calls = 0;
  const summarize: ContextSummarizer = async () => `summary ${++calls}`;
  return { summarize, calls: () => calls };
}

/** A copy with new message objects, as the next run loads the session from its store. */
const reloaded = (messages: readonly ModelMessage[]) =>
  JSON.parse(JSON.stringify(messages)) as ModelMessage[];

describe('summary memos across runs', () => {
  it('the next run of a session reuses the summary for its first over-limit request', async () => {
    const { summarize, calls } = counting();
    const manager = new ContextManager({ maxTokens: 300, summarize });
    const first = history('s');
    const sent1 = await manager.prepare(first, request('session-a'));
    expect(calls()).toBe(1);
    // the next run: the same stored messages (new objects) and its own new turn
    const second = [...reloaded(first), answer('a3'), user('q4')];
    const sent2 = await manager.prepare(second, request('session-a'));
    expect(calls()).toBe(1);
    expect(sent2[0]).toEqual(sent1[0]);
    expect(sent2.slice(1)).toEqual(second.slice(4));
  });

  it('a session whose covered messages changed (deleted and created again) is summarized afresh', async () => {
    const { summarize, calls } = counting();
    const manager = new ContextManager({ maxTokens: 300, summarize });
    await manager.prepare(history('old'), request('session-b'));
    const sent = await manager.prepare(history('new'), request('session-b'));
    expect(calls()).toBe(2);
    expect(sent[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('summary 2'),
    });
  });

  it('summaries of other sessions are never used', async () => {
    const { summarize, calls } = counting();
    const manager = new ContextManager({ maxTokens: 300, summarize });
    const messages = history('same');
    await manager.prepare(messages, request('session-c'));
    await manager.prepare(reloaded(messages), request('session-d'));
    expect(calls()).toBe(2);
  });

  it('keeps at most its capacity of sessions, dropping the least recently used', () => {
    const memos = new SummaryMemos(2);
    const memo = {
      covered: new Set([0]),
      message: { role: 'system' as const, content: 'summary' },
      size: { tokens: 1, bytes: 1 },
    };
    const t = (n: string) => [user(n)];
    const a = t('a');
    memos.set('a', a, memo);
    memos.set('b', t('b'), memo);
    expect(memos.get('a', reloaded(a))).toBe(memo); // a is now the most recent
    memos.set('c', t('c'), memo);
    expect(memos.size).toBe(2);
    expect(memos.get('b', t('b'))).toBeUndefined();
    expect(memos.get('a', reloaded(a))).toBe(memo);
  });
});

describe('system prompt size', () => {
  it('the host tokenizer counts a system prompt once, however many requests carry it', async () => {
    const system = `You are terse. ${'s'.repeat(200)}`;
    let systemCounts = 0;
    const manager = new ContextManager({
      maxTokens: 300,
      tokenizer: (text) => {
        if (text === system) systemCounts++;
        return Math.ceil(text.length / 4);
      },
    });
    const messages = history('t');
    for (let i = 0; i < 3; i++) await manager.prepare(messages, request('s', system));
    expect(systemCounts).toBe(1);
  });
});
