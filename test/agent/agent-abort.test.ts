import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, scriptedModel, tool } from '../../src/index.js';
import type { ModelClient, ModelPart, ToolDefinition, ToolExecutor } from '../../src/index.js';
import { collect, deferred, ofType } from '../support/run-helpers.js';

/** A test model (a fake: no provider involved) that streams one delta, then hangs and ignores its signal. */
function hangingModel(onStreaming: () => void): ModelClient {
  return {
    specificationVersion: 'muster-model-v1',
    provider: 'test-hanging',
    defaultModelName: 'hang',
    async *generate(): AsyncGenerator<ModelPart> {
      yield { type: 'text-delta', text: 'partial answer' };
      onStreaming();
      await new Promise(() => undefined);
    },
  };
}

describe('cancellation', () => {
  it('aborting in the middle of a model stream ends the run at once with ABORTED and keeps the partial text', async () => {
    const store = new MemorySessionStore();
    const ac = new AbortController();
    const agent = createAgent({ model: hangingModel(() => ac.abort()), sessionStore: store });
    const { events, error } = await collect(
      agent.run({ input: 'x', sessionId: 'ab1', signal: ac.signal }),
    );
    expect(error).toMatchObject({ code: 'ABORTED' });
    expect(events.map((e) => e.type)).toEqual(['session.started', 'model.delta', 'session.failed']);
    const state = await store.get('ab1');
    expect(state?.status).toBe('failed');
    expect(state?.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'partial answer' }],
      incomplete: true,
    });
  });

  it('aborting in the middle of a tool call reports TOOL_OUTCOME_UNKNOWN for it and never replays it', async () => {
    const store = new MemorySessionStore();
    const ac = new AbortController();
    let executions = 0;
    let toolSignal: AbortSignal | undefined;
    const stuck = tool({
      name: 'charge_card',
      description: 'Charges a card; ignores cancellation.',
      input: z.object({ cents: z.number() }),
      execute: (_args, ctx) => {
        executions++;
        toolSignal = ctx.signal;
        ac.abort();
        return new Promise<string>(() => undefined);
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'charge_card', arguments: { cents: 100 } },
          { name: 'charge_card', arguments: { cents: 200 } },
        ],
      },
      { text: 'never' },
    ]);
    const agent = createAgent({
      model,
      tools: [stuck],
      policy: { allow: ['*'] },
      sessionStore: store,
    });
    const { events, error } = await collect(
      agent.run({ input: 'pay', sessionId: 'ab2', signal: ac.signal }),
    );
    expect(error).toMatchObject({ code: 'ABORTED' });
    expect(executions).toBe(1);
    expect(toolSignal?.aborted).toBe(true);
    expect(model.requests).toHaveLength(1);
    const completed = ofType(events, 'tool.completed');
    expect(completed.map((c) => [c.errorCode, c.executed])).toEqual([
      ['TOOL_OUTCOME_UNKNOWN', true],
      [undefined, false],
    ]);
    const tools = (await store.get('ab2'))!.messages.filter((m) => m.role === 'tool');
    expect(tools.map((t) => (t.role === 'tool' ? t.content : ''))).toEqual([
      expect.stringMatching(/^Error \[TOOL_OUTCOME_UNKNOWN\]/),
      expect.stringMatching(/^Error \[ABORTED\]: the run was aborted before this call ran/),
    ]);
    expect(events.at(-1)?.type).toBe('session.failed');
  });

  it('aborting while the approver is asked ends the run with ABORTED and runs nothing', async () => {
    const ac = new AbortController();
    let ran = false;
    const t = tool({
      name: 't',
      description: 't',
      input: z.object({}),
      execute: () => ((ran = true), 'x'),
    });
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 't', arguments: {} }] }]),
      tools: [t],
      policy: {
        approve: (_r, signal) =>
          new Promise((_res, rej) => {
            signal.addEventListener('abort', () => rej(new Error('prompt closed')));
            ac.abort();
          }),
      },
    });
    const { error } = await collect(agent.run({ input: 'x', signal: ac.signal }));
    expect(error).toMatchObject({ code: 'ABORTED' });
    expect(ran).toBe(false);
  });

  it('a run whose signal has aborted already touches no session, also once the agent is initialized', async () => {
    const store = new MemorySessionStore();
    const agent = createAgent({ model: scriptedModel([{ text: 'first' }]), sessionStore: store });
    await collect(agent.run({ input: 'x', sessionId: 'done' })); // initializes the agent
    const before = await store.get('done');
    for (const run of [
      agent.run({ input: 'y', sessionId: 'new', signal: AbortSignal.abort() }),
      agent.run({ input: 'y', sessionId: 'done', signal: AbortSignal.abort() }),
      agent.resume('done', { signal: AbortSignal.abort() }),
    ]) {
      const { events, error } = await collect(run);
      expect(error).toMatchObject({ code: 'ABORTED' });
      expect(events.map((e) => e.type)).toEqual(['session.failed']);
    }
    expect(await store.get('new')).toBeUndefined();
    expect(await store.get('done')).toEqual(before);
    await agent.close();
  });

  it('one caller signal shared by many concurrent runs raises no listener warning, and aborts them all', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const ac = new AbortController();
      let streaming = 0;
      const started = deferred<void>();
      const agent = createAgent({
        model: hangingModel(() => {
          if (++streaming === 16) started.resolve();
        }),
      });
      const runs = Array.from({ length: 16 }, () =>
        collect(agent.run({ input: 'x', signal: ac.signal })),
      );
      await started.promise;
      ac.abort();
      for (const { error } of await Promise.all(runs))
        expect(error).toMatchObject({ code: 'ABORTED' });
      await agent.close();
      // a warning is emitted on the next tick at the latest
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('breaking out of the event loop aborts the run', async () => {
    let toolSignal: AbortSignal | undefined;
    const started = deferred();
    const t = tool({
      name: 'wait',
      description: 'w',
      input: z.object({}),
      execute: (_a, ctx) => {
        toolSignal = ctx.signal;
        started.resolve();
        return new Promise<string>(() => undefined);
      },
    });
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'wait', arguments: {} }] }]),
      tools: [t],
      policy: { allow: ['*'] },
    });
    for await (const ev of agent.run({ input: 'x', sessionId: 'brk' })) {
      if (ev.type === 'tool.called') {
        await started.promise;
        break;
      }
    }
    expect(toolSignal?.aborted).toBe(true);
    await agent.awaitIdle();
    expect((await agent.sessions.get('brk'))?.status).toBe('failed');
  });

  it('close() cancels in-flight runs, closes executors once, and later runs fail with ABORTED', async () => {
    let closes = 0;
    const executing = deferred();
    const executor: ToolExecutor = {
      listTools: () =>
        [{ name: 'hang', description: 'h', inputSchema: { type: 'object' } }] as ToolDefinition[],
      execute: () => {
        executing.resolve();
        return new Promise(() => undefined);
      },
      close: async () => void closes++,
    };
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'hang', arguments: {} }] }]),
      toolExecutor: executor,
      policy: { allow: ['*'] },
    });
    const running = collect(agent.run({ input: 'x' }));
    await executing.promise;
    await Promise.all([agent.close(), agent.close()]);
    expect((await running).error).toMatchObject({ code: 'ABORTED' });
    expect(closes).toBe(1);
    const after = await collect(agent.run({ input: 'again' }));
    expect(after.error).toMatchObject({
      code: 'ABORTED',
      message: expect.stringContaining('closed'),
    });
    await expect(agent.initialize()).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('scheduling and catalog', () => {
  it('runs read-only calls of one turn concurrently, others one at a time, results in response order', async () => {
    let active = 0;
    let maxActive = 0;
    const bothStarted = deferred();
    const make = (name: string, readOnly: boolean) =>
      tool({
        name,
        description: name,
        input: z.object({ id: z.string() }),
        ...(readOnly ? { annotations: { readOnlyHint: true } } : {}),
        execute: async ({ id }) => {
          active++;
          maxActive = Math.max(maxActive, active);
          if (readOnly && active === 2) bothStarted.resolve();
          if (readOnly) await bothStarted.promise;
          active--;
          return `${name}:${id}`;
        },
      });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'read', arguments: { id: '1' } },
          { name: 'read', arguments: { id: '2' } },
          { name: 'write', arguments: { id: '3' } },
          { name: 'write', arguments: { id: '4' } },
        ],
      },
      { text: 'done' },
    ]);
    const agent = createAgent({
      model,
      tools: [make('read', true), make('write', false)],
      policy: { allow: ['*'] },
    });
    const { error } = await collect(agent.run({ input: 'x', signal: AbortSignal.timeout(5_000) }));
    expect(error).toBeUndefined();
    expect(maxActive).toBe(2);
    const results = model.requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(results.map((r) => (r.role === 'tool' ? r.content : ''))).toEqual([
      'read:1',
      'read:2',
      'write:3',
      'write:4',
    ]);
  });

  it('fixes the catalog for a run: a change in the tool source applies from the next run', async () => {
    let tools: ToolDefinition[] = [
      { name: 'v1', description: 'first', inputSchema: { type: 'object' } },
    ];
    const executor: ToolExecutor = {
      listTools: () => tools,
      execute: async (name) => {
        tools = [{ name: 'v2', description: 'second', inputSchema: { type: 'object' } }];
        return `ran ${name}`;
      },
    };
    const model = scriptedModel([
      { toolCalls: [{ name: 'v1', arguments: {} }] },
      { text: 'one' },
      { text: 'two' },
    ]);
    const agent = createAgent({ model, toolExecutor: executor, policy: { allow: ['*'] } });
    await agent.send('first');
    await agent.send('second');
    expect(model.requests.map((r) => r.tools.map((t) => t.name))).toEqual([['v1'], ['v1'], ['v2']]);
  });
});
