/**
 * Where a call's start is committed (the mark that makes a call that may have run
 * `TOOL_OUTCOME_UNKNOWN` on resume, never run again): the calls a turn runs first have theirs
 * in the same write as the turn's own message; a call that starts later, after another call's
 * result, in a write of its own just before it runs; a call refused before it could run
 * (over `maxToolCallsPerTurn`, or a budget the turn itself spent) never gets one.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, scriptedModel, tool } from '../../src/index.js';
import type { SessionPatch, SessionWriteOptions } from '../../src/index.js';

/** A memory store that keeps what each write asked for (the store itself is the real one). */
class RecordingStore extends MemorySessionStore {
  readonly writes: SessionPatch[] = [];
  override update(id: string, patch: SessionPatch, options?: SessionWriteOptions) {
    this.writes.push(patch);
    return super.update(id, patch, options);
  }
}

/** Each write, as what it adds: messages by role (and tool-call ids), starts, in order. */
function shape(writes: readonly SessionPatch[]): string[] {
  return writes.flatMap((w) => {
    const parts: string[] = [];
    for (const m of w.appendMessages ?? []) {
      if (m.role === 'assistant') {
        const ids = m.content.flatMap((c) => (c.type === 'tool-call' ? [c.callId] : []));
        parts.push(ids.length > 0 ? `asks ${ids.join('+')}` : 'answers');
      } else if (m.role === 'tool') parts.push(`result ${m.callId}`);
      else parts.push(m.role);
    }
    if (w.appendStartedCalls) parts.push(`starts ${w.appendStartedCalls.join('+')}`);
    return parts.length > 0 ? [parts.join(', ')] : [];
  });
}

const input = z.object({ n: z.number() });
const look = tool({
  name: 'look',
  description: 'Reads.',
  input,
  annotations: { readOnlyHint: true },
  execute: ({ n }) => `saw ${n}`,
});
const change = tool({
  name: 'change',
  description: 'Writes.',
  input,
  execute: ({ n }) => `set ${n}`,
});

async function run(
  turns: Parameters<typeof scriptedModel>[0],
  limits?: Record<string, unknown>,
): Promise<{ store: RecordingStore; started: readonly string[]; results: string[] }> {
  const store = new RecordingStore();
  const agent = createAgent({
    model: scriptedModel(turns),
    tools: [look, change],
    sessionStore: store,
    policy: { allow: ['look', 'change'] },
    ...(limits ? { limits } : {}),
  });
  try {
    await agent.send('go', { sessionId: 's1', stream: false }).catch(() => undefined);
    const state = await store.get('s1');
    return {
      store,
      started: state?.startedCalls ?? [],
      results: (state?.messages ?? []).flatMap((m) =>
        m.role === 'tool' ? [`${m.callId}: ${m.content}`] : [],
      ),
    };
  } finally {
    await agent.close();
  }
}

describe('call starts', () => {
  it('read-only calls of one turn start in the write of the message that asked for them', async () => {
    const { store, started, results } = await run([
      {
        toolCalls: [
          { id: 'a', name: 'look', arguments: { n: 1 } },
          { id: 'b', name: 'look', arguments: { n: 2 } },
        ],
      },
      { text: 'done' },
    ]);
    expect(shape(store.writes)).toEqual([
      'user',
      'asks a+b, starts a+b',
      'result a',
      'result b',
      'answers',
    ]);
    expect(started).toEqual(['a', 'b']);
    expect(results).toEqual(['a: saw 1', 'b: saw 2']);
  });

  it('a call that runs after another call has its start written after that result', async () => {
    const { store, started } = await run([
      {
        toolCalls: [
          { id: 'a', name: 'change', arguments: { n: 1 } },
          { id: 'b', name: 'change', arguments: { n: 2 } },
        ],
      },
      { text: 'done' },
    ]);
    expect(shape(store.writes)).toEqual([
      'user',
      'asks a+b, starts a',
      'result a',
      'starts b',
      'result b',
      'answers',
    ]);
    expect(started).toEqual(['a', 'b']);
  });

  it('calls refused as a turn over maxToolCallsPerTurn get no start', async () => {
    const { store, started, results } = await run(
      [
        {
          toolCalls: [
            { id: 'a', name: 'look', arguments: { n: 1 } },
            { id: 'b', name: 'look', arguments: { n: 2 } },
          ],
        },
      ],
      { maxToolCallsPerTurn: 1 },
    );
    expect(started).toEqual([]);
    expect(shape(store.writes)).toEqual(['user', 'asks a+b', 'result a, result b']);
    expect(results.every((r) => r.includes('AGENT_LIMIT_EXCEEDED'))).toBe(true);
  });

  it('calls of the turn that spent the budget get no start', async () => {
    const usage = { inputTokens: 80, outputTokens: 40, totalTokens: 120 };
    const { started, results } = await run(
      [{ toolCalls: [{ id: 'a', name: 'look', arguments: { n: 1 } }], usage }, { text: 'done' }],
      { maxTotalTokens: 100, onBudgetExhausted: 'finish' },
    );
    expect(started).toEqual([]);
    expect(results).toEqual([expect.stringMatching(/^a: Error \[BUDGET_EXHAUSTED\]/)]);
  });

  it('a call the budget refuses at its start gets no start; one it admits is counted in the same write', async () => {
    const { store, started, results } = await run(
      [
        {
          toolCalls: [
            { id: 'a', name: 'look', arguments: { n: 1 } },
            { id: 'b', name: 'look', arguments: { n: 2 } },
          ],
        },
        { text: 'done' },
      ],
      { maxToolCalls: 1, onBudgetExhausted: 'finish' },
    );
    expect(started).toEqual(['a']);
    expect(results).toEqual(['a: saw 1', expect.stringMatching(/^b: Error \[BUDGET_EXHAUSTED\]/)]);
    const asked = store.writes.find((w) => w.appendStartedCalls !== undefined);
    expect(asked?.appendStartedCalls).toEqual(['a']);
    expect(asked?.budget?.spent.toolCalls).toBe(1);
  });

  it('while a call whose start rode the turn runs, the store holds its start and its count', async () => {
    const store = new RecordingStore();
    let seen: { started: readonly string[]; toolCalls: number | undefined } | undefined;
    const peek = tool({
      name: 'peek',
      description: 'Reads the session while it runs.',
      input,
      execute: async () => {
        const state = await store.get('s1');
        seen = { started: state?.startedCalls ?? [], toolCalls: state?.budget?.spent.toolCalls };
        return 'peeked';
      },
    });
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ id: 'a', name: 'peek', arguments: { n: 1 } }] },
        { text: 'done' },
      ]),
      tools: [peek],
      sessionStore: store,
      policy: { allow: ['peek'] },
      limits: { maxToolCalls: 5 },
    });
    try {
      await agent.send('go', { sessionId: 's1', stream: false });
    } finally {
      await agent.close();
    }
    expect(seen).toEqual({ started: ['a'], toolCalls: 1 });
  });
});
