/**
 * `canUseTool` answering `defer` (the reference SDKs' deferred tool call) parks the call on a
 * wait (SPEC 15.1): the query ends with a `parked` result naming it, and a later query with
 * `resume` and the same store continues the session, deciding through its own `canUseTool`
 * or taking a decision made with `agent.decide()`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MemorySessionStore,
  createAgent,
  createSdkMcpServer,
  scriptedModel,
  sdkTool,
} from '../../src/index.js';
import type { ScriptedTurn } from '../../src/index.js';
import { query } from '../../src/query/index.js';
import type {
  QueryCanUseTool,
  QueryMessage,
  QueryResultMessage,
  QueryUserMessage,
} from '../../src/query/index.js';

/** A `pay` tool that records each run, so a test sees it ran once with what was approved. */
function payServer(runs: number[]) {
  const pay = sdkTool('pay', 'Pays an amount.', { n: z.number() }, async ({ n }) => {
    runs.push(n);
    return { content: [{ type: 'text', text: `paid ${n}` }] };
  });
  return createSdkMcpServer({ name: 'bank', tools: [pay] });
}

const PAY_5: ScriptedTurn = { toolCalls: [{ name: 'mcp__bank__pay', arguments: { n: 5 } }] };

/** An empty prompt stream: a continuing query that sends no new user turn. */
async function* noTurns(): AsyncGenerator<QueryUserMessage> {}

async function messagesOf(q: AsyncIterable<QueryMessage>): Promise<QueryMessage[]> {
  const all: QueryMessage[] = [];
  for await (const m of q) all.push(m);
  return all;
}

const results = (messages: QueryMessage[]) =>
  messages.filter((m): m is QueryResultMessage => m.type === 'result');

/** Runs a first query whose `canUseTool` defers the call; returns the store and its result. */
async function deferred(runs: number[], turns: ScriptedTurn[]) {
  const store = new MemorySessionStore();
  const asked: string[] = [];
  const canUseTool: QueryCanUseTool = async (name, _input, { toolUseID }) => {
    asked.push(`${name}:${toolUseID}`);
    return { behavior: 'defer', message: 'needs a person' };
  };
  const first = await messagesOf(
    query({
      prompt: 'Pay 5.',
      options: {
        model: scriptedModel(turns),
        mcpServers: { bank: payServer(runs) },
        strictMcpConfig: true,
        sessionStore: store,
        sessionId: 'pay-session',
        canUseTool,
      },
    }),
  );
  return { store, asked, first };
}

describe('query() with canUseTool answering defer', () => {
  it('ends the query parked, naming the wait; a query resuming the session asks canUseTool again and completes', async () => {
    const runs: number[] = [];
    const { store, asked, first } = await deferred(runs, [PAY_5, { text: 'Paid.' }]);
    expect(asked).toEqual(['mcp__bank__pay:call_1_1']);
    expect(runs).toEqual([]);
    const [parked] = results(first);
    expect(results(first)).toHaveLength(1);
    expect(parked).toMatchObject({
      subtype: 'parked',
      is_error: false,
      stop_reason: 'tool_deferred',
      session_id: 'pay-session',
      deferred_tool_use: { id: 'call_1_1', name: 'mcp__bank__pay', input: { n: 5 } },
      permission_denials: [],
    });
    expect(parked?.result).toBeUndefined();
    expect(parked?.waits).toMatchObject([
      { kind: 'approval', callId: 'call_1_1', status: 'pending', message: 'needs a person' },
    ]);
    expect((await store.get('pay-session'))?.status).toBe('parked');

    // the continuing query: its canUseTool decides the wait, the call runs once, then the run ends
    const again: unknown[] = [];
    const second = await messagesOf(
      query({
        prompt: noTurns(),
        options: {
          // the continued run asks the model once more (after the result): this is that turn
          model: scriptedModel([{ text: 'Paid 5.' }]),
          mcpServers: { bank: payServer(runs) },
          strictMcpConfig: true,
          sessionStore: store,
          resume: 'pay-session',
          canUseTool: async (name, input, { toolUseID }) => {
            again.push({ name, input, toolUseID });
            return { behavior: 'allow' };
          },
        },
      }),
    );
    expect(again).toEqual([{ name: 'mcp__bank__pay', input: { n: 5 }, toolUseID: 'call_1_1' }]);
    expect(runs).toEqual([5]);
    expect(second[0]).toMatchObject({ type: 'system', subtype: 'init' });
    expect(results(second)).toMatchObject([
      { subtype: 'success', is_error: false, result: 'Paid 5.' },
    ]);
    expect(results(second)[0]?.stop_reason).toBeUndefined();
    expect((await store.get('pay-session'))?.status).toBe('completed');
  });

  it('a continuing query that defers again stays parked; a decision from agent.decide() then completes it', async () => {
    const runs: number[] = [];
    const { store, first } = await deferred(runs, [PAY_5]);
    const waitId = results(first)[0]!.waits![0]!.id;
    const continueWith = (canUseTool: QueryCanUseTool | undefined, turns: ScriptedTurn[]) =>
      messagesOf(
        query({
          prompt: noTurns(),
          options: {
            model: scriptedModel(turns),
            mcpServers: { bank: payServer(runs) },
            strictMcpConfig: true,
            sessionStore: store,
            resume: 'pay-session',
            ...(canUseTool ? { canUseTool } : {}),
          },
        }),
      );

    const still = await continueWith(async () => ({ behavior: 'defer' }), []);
    expect(results(still)).toMatchObject([
      { subtype: 'parked', is_error: false, waits: [{ id: waitId, status: 'pending' }] },
    ]);
    expect(runs).toEqual([]);

    // another host (any process with the store) decides; the next continuation only resumes
    const decider = createAgent({ sessionStore: store });
    await decider.decide('pay-session', waitId, { decision: 'allow', reason: 'ok by ana' });
    await decider.close();
    let asked = 0;
    const done = await continueWith(async () => {
      asked++;
      return { behavior: 'deny', message: 'not asked: the wait is decided' };
    }, [{ text: 'Paid after all.' }]);
    expect(asked).toBe(0);
    expect(runs).toEqual([5]);
    expect(results(done)).toMatchObject([{ subtype: 'success', result: 'Paid after all.' }]);
  });

  it.each([
    ['denies', { behavior: 'deny', message: 'no by ana' }, 'no by ana'],
    [
      'allows another input',
      { behavior: 'allow', updatedInput: { n: 50 } },
      'an approval is bound to the arguments it was asked about',
    ],
  ] as const)(
    'a continuing canUseTool that %s decides deny: the call never runs',
    async (_, answer, reason) => {
      const runs: number[] = [];
      const { store } = await deferred(runs, [PAY_5]);
      const done = await messagesOf(
        query({
          prompt: noTurns(),
          options: {
            model: scriptedModel([{ text: 'Not paid.' }]),
            mcpServers: { bank: payServer(runs) },
            strictMcpConfig: true,
            sessionStore: store,
            resume: 'pay-session',
            canUseTool: async () => answer,
          },
        }),
      );
      expect(runs).toEqual([]);
      const toolResult = done.find((m) => m.type === 'user');
      expect(JSON.stringify(toolResult)).toContain(reason);
      expect(results(done)).toMatchObject([
        {
          subtype: 'success',
          result: 'Not paid.',
          permission_denials: [{ tool_use_id: 'call_1_1' }],
        },
      ]);
    },
  );
});
