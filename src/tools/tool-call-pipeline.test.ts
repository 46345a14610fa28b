import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ToolPolicy } from '../policy/index.js';
import type { PolicyOptions } from '../policy/index.js';
import { HostToolExecutor, ToolCatalog, runToolCall, tool } from './index.js';
import type { ToolCallEnvironment, ToolEvent, ToolExecutor } from './index.js';

const echo = tool({
  name: 'echo',
  description: 'Echoes text.',
  input: z.object({ text: z.string() }),
  execute: ({ text }, ctx) => {
    ctx.reportProgress({ progress: 1, total: 2 });
    return text;
  },
});
const catalog = await ToolCatalog.build([new HostToolExecutor([echo])]);

/** A call's environment with `policy`, its events collected into `events`. */
function environment(
  policy: PolicyOptions,
  events: ToolEvent[],
  extra: Partial<ToolCallEnvironment> = {},
): ToolCallEnvironment {
  return {
    sessionId: 's1',
    runId: 'r1',
    signal: new AbortController().signal,
    catalog,
    policy: new ToolPolicy(policy),
    beforeTool: [],
    afterTool: [],
    maxToolArgumentBytes: 200,
    maxToolArgumentDepth: 8,
    maxToolResultBytes: 100,
    emit: (e) => events.push(e),
    ...extra,
  };
}

async function call(
  argumentsText: string,
  policy: PolicyOptions,
  extra: Partial<ToolCallEnvironment> = {},
  name = 'echo',
) {
  const events: ToolEvent[] = [];
  const env = environment(policy, events, extra);
  const outcome = await runToolCall({ callId: 'c1', name, argumentsText, iteration: 1 }, env);
  return { outcome, events, types: events.map((e) => e.type) };
}

describe('runToolCall', () => {
  it('runs an allowed call: decision, called, progress, completed', async () => {
    const { outcome, events, types } = await call('{"text":"hi"}', { allow: ['echo'] });
    expect(outcome).toEqual({
      callId: 'c1',
      toolName: 'echo',
      result: { content: 'hi' },
      executed: true,
    });
    expect(types).toEqual(['tool.decision', 'tool.called', 'tool.progress', 'tool.completed']);
    expect(events[3]).toMatchObject({
      sessionId: 's1',
      runId: 'r1',
      callId: 'c1',
      isError: false,
      content: 'hi',
      executed: true,
    });
    expect(events.every((e) => typeof e.timestamp === 'string')).toBe(true);
  });

  it('stops at the first refusing stage with one tool.completed and no later stage', async () => {
    const notFound = await call('{}', { allow: ['*'] }, {}, 'nope');
    expect(notFound.types).toEqual(['tool.completed']);
    expect(notFound.outcome).toMatchObject({ errorCode: 'TOOL_NOT_FOUND', executed: false });

    const invalid = await call('{"text":1}', { allow: ['*'] });
    expect(invalid.types).toEqual(['tool.completed']);
    expect(invalid.outcome.result.content).toMatch(/^Error \[TOOL_ARGUMENTS_INVALID\]: Invalid/);

    const hook = await call(
      '{"text":"a"}',
      { allow: ['*'] },
      {
        beforeTool: [() => ({ decision: 'deny', reason: 'no echo today' })],
      },
    );
    expect(hook.types).toEqual(['tool.decision', 'tool.completed']);
    expect(hook.events[0]).toMatchObject({ decision: 'deny', stage: 'hook' });
    expect(hook.outcome).toMatchObject({ errorCode: 'TOOL_DENIED', executed: false });

    const denied = await call('{"text":"a"}', { deny: ['echo'] });
    expect(denied.types).toEqual(['tool.decision', 'tool.completed']);
    expect(denied.outcome).toMatchObject({ errorCode: 'TOOL_DENIED', executed: false });
  });

  it('refuses after the tool ran with executed: true', async () => {
    const big = await call(
      '{"text":"a"}',
      { allow: ['*'] },
      {
        afterTool: [() => ({ result: 'z'.repeat(101) })],
      },
    );
    expect(big.types).toEqual(['tool.decision', 'tool.called', 'tool.progress', 'tool.completed']);
    expect(big.outcome).toMatchObject({ errorCode: 'TOOL_RESULT_TOO_LARGE', executed: true });
    expect(big.outcome.result.content).toContain('101 bytes, over the limit of 100');

    const stored = await call(
      '{"text":"a"}',
      { allow: ['*'] },
      {
        finishResult: async () => {
          throw new Error('disk full');
        },
      },
    );
    expect(stored.outcome).toMatchObject({ errorCode: 'TOOL_EXECUTION_FAILED', executed: true });
    expect(stored.outcome.result.content).toContain('could not be stored: disk full');

    // a step that fails before it returns a promise is refused the same way
    const thrown = await call(
      '{"text":"a"}',
      { allow: ['*'] },
      {
        finishResult: () => {
          throw new Error('no archive');
        },
      },
    );
    expect(thrown.outcome).toMatchObject({ errorCode: 'TOOL_EXECUTION_FAILED', executed: true });
    expect(thrown.outcome.result.content).toContain('could not be stored: no archive');
  });

  it('takes what a finishing step gives, at once or later', async () => {
    for (const finishResult of [
      () => ({ content: 'kept as is' }),
      async () => ({ content: 'kept as is' }),
    ]) {
      const { outcome, types } = await call('{"text":"a"}', { allow: ['*'] }, { finishResult });
      expect(outcome).toMatchObject({ result: { content: 'kept as is' }, executed: true });
      expect(types).toEqual(['tool.decision', 'tool.called', 'tool.progress', 'tool.completed']);
    }
  });

  it('sends a call whose stages all answer at once before runToolCall returns', async () => {
    // a tool checked by its JSON Schema, as a server's tools are (no validator of its own)
    const executor: ToolExecutor = {
      listTools: () => [
        {
          name: 'shout',
          description: 'Shouts.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        },
      ],
      execute: async (_name, input) => String(input['text']).toUpperCase(),
    };
    const shouting = await ToolCatalog.build([executor]);
    const started = (policy: PolicyOptions) => {
      const events: ToolEvent[] = [];
      const env = environment(policy, events, { catalog: shouting });
      const request = { callId: 'c1', name: 'shout', argumentsText: '{"text":"hi"}', iteration: 1 };
      const outcome = runToolCall(request, env);
      // what happened before the pipeline's first `await`
      return { outcome, types: events.map((e) => e.type) };
    };
    // the first call compiles the schema (an await); later ones are checked at once
    expect((await started({ allow: ['shout'] }).outcome).result.content).toBe('HI');
    const quick = started({ allow: ['shout'] });
    expect(quick.types).toEqual(['tool.decision', 'tool.called']);
    expect((await quick.outcome).result.content).toBe('HI');
    // a rule is asked through a promise: nothing is decided before the first await
    const ruled = started({ rules: [{ id: 'r', authorize: () => 'allow' as const }] });
    expect(ruled.types).toEqual([]);
    expect((await ruled.outcome).result.content).toBe('HI');
  });

  it('tells the policy observer of each decision once, decided at once or by a rule', async () => {
    for (const policy of [
      { allow: ['echo'] },
      { deny: ['echo'] },
      { default: 'allow' as const },
      { rules: [{ id: 'r', authorize: () => 'allow' as const }] },
      { rules: [{ id: 'r', authorize: () => undefined }], default: 'deny' as const },
    ]) {
      const observer = vi.fn();
      const { outcome, events } = await call('{"text":"a"}', { ...policy, observer });
      expect(observer).toHaveBeenCalledTimes(1);
      const decision = events.find((e) => e.type === 'tool.decision');
      expect(observer.mock.calls[0]![0]).toMatchObject({
        callId: 'c1',
        decision: (decision as { decision: string }).decision,
      });
      expect(outcome.executed).toBe((decision as { decision: string }).decision === 'allow');
    }
  });

  it('ends a redirected or dry-run call without running it or an error', async () => {
    const redirect = await call('{"text":"a"}', {
      rules: [{ id: 'r', authorize: () => ({ decision: 'redirect', message: 'do x' }) }],
    });
    expect(redirect.types).toEqual(['tool.decision', 'tool.completed']);
    expect(redirect.outcome).toMatchObject({ redirect: 'do x', executed: false });
    expect(redirect.outcome.result.isError).toBeUndefined();

    const dry = await call('{"text":"a"}', { deny: ['echo'], dryRun: true });
    expect(dry.types).toEqual(['tool.decision', 'tool.completed']);
    expect(dry.outcome.result.content).toMatch(/^Dry run: this call would be denied/);
  });

  it('item-05: leaves the wait for the approver out of durationMs', async () => {
    // the clock moves only when the person answers, a minute after being asked: with the wait
    // counted, durationMs would be at least that minute; without it, nothing else moves it
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const WAIT_MS = 60_000;
      const slowly =
        (answer: boolean): PolicyOptions['approve'] =>
        () => {
          vi.advanceTimersByTime(WAIT_MS);
          return answer;
        };
      for (const answer of [true, false]) {
        const began = performance.now();
        const { events, types } = await call('{"text":"hi"}', {
          default: 'ask',
          approve: slowly(answer),
        });
        expect(performance.now() - began).toBe(WAIT_MS);
        expect(types[0]).toBe('tool.approval.requested');
        const completed = events.find((e) => e.type === 'tool.completed');
        expect(completed?.type === 'tool.completed' && completed.executed).toBe(answer);
        expect(completed?.type === 'tool.completed' ? completed.durationMs : -1).toBe(0);
      }
    } finally {
      vi.useRealTimers();
    }
  });
});
