import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { ModelMessage, ScriptedTurn } from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

const fetchPage = tool({
  name: 'fetch_page',
  description: 'Returns a long page.',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => `page ${n}: ${'lorem ipsum '.repeat(250)}`,
});

/** Per run: one tool call, then an answer. */
function turns(runs: number): ScriptedTurn[] {
  return Array.from({ length: runs }, (_, i): ScriptedTurn[] => [
    { toolCalls: [{ name: 'fetch_page', arguments: { n: i } }] },
    { text: `answer ${i}` },
  ]).flat();
}

/** True when `sent` is `stored` with some messages left out, in order. */
function isSubsequence(sent: readonly ModelMessage[], stored: readonly ModelMessage[]): boolean {
  let at = 0;
  for (const m of sent) {
    while (at < stored.length && JSON.stringify(stored[at]) !== JSON.stringify(m)) at++;
    if (at++ >= stored.length) return false;
  }
  return true;
}

describe('agent context management', () => {
  it('compacts what is sent while the stored transcript keeps everything', async () => {
    const model = scriptedModel(turns(4));
    const agent = createAgent({
      model,
      tools: [fetchPage],
      policy: { allow: ['fetch_page'] },
      system: 'Answer from the pages.',
      context: { maxTokens: 2_500 },
    });
    const sessionId = 'ctx-session';
    const compacted = [];
    for (let run = 0; run < 4; run++) {
      const { events, error } = await collect(agent.run({ input: `question ${run}`, sessionId }));
      expect(error).toBeUndefined();
      compacted.push(...ofType(events, 'context.compacted'));
    }
    const stored = (await agent.sessions.get(sessionId))!.messages;
    // 4 runs x (question, call, result, answer): nothing was rewritten or dropped in the store
    expect(stored).toHaveLength(16);
    expect(stored.filter((m) => m.role === 'tool')).toHaveLength(4);
    const last = model.requests.at(-1)!;
    expect(last.messages.length).toBeLessThan(stored.length - 1);
    expect(isSubsequence(last.messages, stored)).toBe(true);
    // the newest question and the latest call with its result are always sent
    expect(last.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('page 3'),
    });
    expect(last.messages).toContainEqual(stored[12]);
    expect(compacted.length).toBeGreaterThan(0);
    for (const ev of compacted) {
      expect(ev).toMatchObject({ type: 'context.compacted', sessionId, strategy: 'truncate' });
      expect(ev.after.tokens).toBeLessThanOrEqual(2_500);
      expect(ev.before.tokens).toBeGreaterThan(2_500);
      expect(ev.after.messages).toBeLessThan(ev.before.messages);
      expect(ev.after.bytes).toBeLessThan(ev.before.bytes);
      expect(ev.removedMessages).toBe(ev.before.messages - ev.after.messages);
    }
    // every compacted request is the one the model got right after the event
    const lastEvent = compacted.at(-1)!;
    expect(lastEvent.after.messages).toBe(last.messages.length);
    expect(lastEvent.before.messages).toBe(stored.length - 1);
    await agent.close();
  });

  it('summarizes with the host function; the summary is sent, never stored', async () => {
    const model = scriptedModel(turns(3));
    const seen: number[] = [];
    const agent = createAgent({
      model,
      tools: [fetchPage],
      policy: { allow: ['fetch_page'] },
      context: {
        maxTokens: 1_800,
        summarize: async (messages) => {
          seen.push(messages.length);
          return `the user asked ${messages.filter((m) => m.role === 'user').length} questions`;
        },
      },
    });
    const sessionId = 'summary-session';
    const events = [];
    for (let run = 0; run < 3; run++)
      events.push(...(await collect(agent.run({ input: `question ${run}`, sessionId }))).events);
    expect(seen.length).toBeGreaterThan(0);
    const sent = model.requests.at(-1)!.messages;
    expect(sent.filter((m) => m.role === 'system')).toEqual([
      { role: 'system', content: expect.stringMatching(/^Summary of the \d+ earliest messages/) },
    ]);
    const stored = (await agent.sessions.get(sessionId))!.messages;
    expect(stored).toHaveLength(12);
    expect(stored.some((m) => m.role === 'system')).toBe(false);
    const summarizedEvents = ofType(events, 'context.compacted');
    expect(summarizedEvents.every((e) => e.strategy === 'summarize')).toBe(true);
    expect(summarizedEvents.some((e) => e.summarized === true)).toBe(true);
    await agent.close();
  });

  it('fails the run with AGENT_LIMIT_EXCEEDED before the request when the newest turn cannot fit', async () => {
    const model = scriptedModel(turns(1));
    const agent = createAgent({
      model,
      tools: [fetchPage],
      policy: { allow: ['fetch_page'] },
      context: { maxTokens: 500 },
    });
    const { events, error } = await collect(agent.run({ input: 'read page 0' }));
    expect(error).toMatchObject({
      code: 'AGENT_LIMIT_EXCEEDED',
      details: { limit: 'context.maxTokens', value: 500 },
    });
    expect(ofType(events, 'session.failed')[0]!.error).toBe(error);
    // the first request fitted; the second (with the long result) was never sent
    expect(model.requests).toHaveLength(1);
    const stored = (await agent.sessions.get(events[0]!.sessionId))!;
    expect(stored.status).toBe('failed');
    expect(stored.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    await agent.close();
  });

  it('refuses bad context options with INVALID_CONFIGURATION', () => {
    for (const context of [
      { maxTokens: 0 },
      { maxMessages: 2.5 },
      { maxBytes: '10' },
      { strategy: 'shorten' },
      { strategy: 'summarize' },
      { tokenizer: 'cl100k' },
      { summarize: 'yes' },
      { strategy: 'truncate', summarize: async () => '' },
    ]) {
      expect(() => createAgent({ context: context as never })).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
      );
    }
  });
});
