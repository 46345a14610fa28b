import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, scriptedModel, tool } from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

/** `levels` arrays around a 1. */
function nestedArrays(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

const echo = tool({
  name: 'echo',
  description: 'Echoes text.',
  input: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  execute: ({ text }) => text,
});
const loopTurn = { toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] };

describe('limits', () => {
  it('maxIterations fails the run with AGENT_LIMIT_EXCEEDED after session.failed, keeping the transcript valid', async () => {
    const store = new MemorySessionStore();
    const model = scriptedModel(Array.from({ length: 10 }, () => loopTurn));
    const agent = createAgent({
      model,
      tools: [echo],
      policy: { allow: ['echo'] },
      limits: { maxIterations: 3 },
      sessionStore: store,
    });
    const { events, error } = await collect(agent.run({ input: 'loop', sessionId: 'lim' }));
    expect(error).toMatchObject({
      code: 'AGENT_LIMIT_EXCEEDED',
      details: { limit: 'maxIterations', value: 3 },
    });
    expect(events.at(-1)).toMatchObject({ type: 'session.failed', error });
    expect(model.requests).toHaveLength(3);
    const state = await store.get('lim');
    expect(state).toMatchObject({ status: 'failed', error: { code: 'AGENT_LIMIT_EXCEEDED' } });
    expect(state?.messages.filter((m) => m.role === 'tool')).toHaveLength(3);
  });

  it('a per-run override replaces the agent limit for that run only', async () => {
    const agent = createAgent({
      model: scriptedModel(Array.from({ length: 20 }, () => loopTurn)),
      tools: [echo],
      policy: { allow: ['echo'] },
    });
    const a = await collect(agent.run({ input: 'x', limits: { maxIterations: 2 } }));
    expect(a.error).toMatchObject({ code: 'AGENT_LIMIT_EXCEEDED', details: { value: 2 } });
    const b = await collect(agent.run({ input: 'x' }));
    expect(b.error).toMatchObject({ code: 'AGENT_LIMIT_EXCEEDED', details: { value: 8 } });
  });

  it('maxToolCallsPerTurn fails the run and records every refused call as an error result', async () => {
    const store = new MemorySessionStore();
    const calls = Array.from({ length: 3 }, (_, i) => ({
      name: 'echo',
      arguments: { text: String(i) },
    }));
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: calls }]),
      tools: [echo],
      policy: { allow: ['echo'] },
      limits: { maxToolCallsPerTurn: 2 },
      sessionStore: store,
    });
    const { events, error } = await collect(agent.run({ input: 'x', sessionId: 'tc' }));
    expect(error).toMatchObject({
      code: 'AGENT_LIMIT_EXCEEDED',
      details: { limit: 'maxToolCallsPerTurn', requested: 3 },
    });
    expect(ofType(events, 'tool.called')).toHaveLength(0);
    const tools = (await store.get('tc'))!.messages.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(3);
    expect(
      tools.every(
        (t) => t.role === 'tool' && t.isError && t.content.includes('AGENT_LIMIT_EXCEEDED'),
      ),
    ).toBe(true);
  });

  it('maxToolArgumentBytes refuses oversized arguments as TOOL_ARGUMENTS_INVALID and the run goes on', async () => {
    const ran: string[] = [];
    const rec = tool({
      name: 'rec',
      description: 'r',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => (ran.push(text), 'ok'),
    });
    const agent = createAgent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'rec', arguments: { text: 'x'.repeat(100) } },
            { name: 'rec', arguments: { text: 'small' } },
          ],
        },
        { text: 'done' },
      ]),
      tools: [rec],
      policy: { allow: ['rec'] },
      limits: { maxToolArgumentBytes: 64 },
    });
    const { events, error } = await collect(agent.run({ input: 'x' }));
    expect(error).toBeUndefined();
    expect(ofType(events, 'tool.completed').map((c) => c.errorCode)).toEqual([
      'TOOL_ARGUMENTS_INVALID',
      undefined,
    ]);
    expect(ran).toEqual(['small']);
  });

  it('maxToolArgumentDepth (default 64) refuses deeper arguments as TOOL_ARGUMENTS_INVALID and the run goes on', async () => {
    const ran: unknown[] = [];
    const keep = tool({
      name: 'keep',
      description: 'k',
      input: z.object({ value: z.unknown() }),
      execute: ({ value }) => (ran.push(value), 'ok'),
    });
    // the arguments object is level 1: { value: 63 arrays } nests 64 levels
    const at64 = nestedArrays(63);
    const agent = createAgent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'keep', arguments: { value: nestedArrays(64) } },
            { name: 'keep', arguments: { value: at64 } },
          ],
        },
        { text: 'done' },
        { toolCalls: [{ name: 'keep', arguments: { value: nestedArrays(9) } }] },
        { text: 'done' },
      ]),
      tools: [keep],
      policy: { allow: ['keep'] },
    });
    const first = await collect(agent.run({ input: 'x' }));
    expect(first.error).toBeUndefined();
    const done = ofType(first.events, 'tool.completed');
    expect(done.map((c) => c.errorCode)).toEqual(['TOOL_ARGUMENTS_INVALID', undefined]);
    expect(done[0]?.content).toContain('deeper than the limit of 64 levels');
    expect(ran).toEqual([at64]);
    // a run's own limit replaces the agent's
    const second = await collect(agent.run({ input: 'x', limits: { maxToolArgumentDepth: 8 } }));
    expect(ofType(second.events, 'tool.completed')[0]?.errorCode).toBe('TOOL_ARGUMENTS_INVALID');
    expect(ran).toHaveLength(1);
  });

  it('arguments a beforeTool hook rewrites are held to maxToolArgumentDepth too', async () => {
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] },
        { text: 'done' },
      ]),
      tools: [echo],
      policy: { allow: ['echo'] },
      hooks: { beforeTool: () => ({ arguments: { text: 'a', deep: nestedArrays(5000) } }) },
    });
    const { events, error } = await collect(agent.run({ input: 'x' }));
    expect(error).toBeUndefined();
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      errorCode: 'TOOL_ARGUMENTS_INVALID',
    });
  });

  it('maxToolResultBytes refuses an oversized result as TOOL_RESULT_TOO_LARGE', async () => {
    const big = tool({
      name: 'big',
      description: 'b',
      input: z.object({ n: z.number() }),
      execute: ({ n }) => 'é'.repeat(n),
    });
    const agent = createAgent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'big', arguments: { n: 60 } },
            { name: 'big', arguments: { n: 40 } },
          ],
        },
        { text: 'done' },
      ]),
      tools: [big],
      policy: { allow: ['big'] },
      limits: { maxToolResultBytes: 100 },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    const done = ofType(events, 'tool.completed');
    expect(done[0]).toMatchObject({ errorCode: 'TOOL_RESULT_TOO_LARGE', executed: true });
    expect(done[0]?.content).toContain('120 bytes');
    expect(done[1]).toMatchObject({ isError: false, content: 'é'.repeat(40) });
  });

  it.each([
    [{ maxIterations: 0 }],
    [{ maxIterations: 1.5 }],
    [{ maxToolResultBytes: -1 }],
    [{ maxToolArgumentDepth: 0 }],
    [{ maxToolArgumentDepth: 257 }],
    [{ maxTurns: 3 }],
  ])(
    'rejects invalid limits %j with INVALID_CONFIGURATION, at construction and per run',
    async (limits) => {
      expect(() => createAgent({ model: scriptedModel([]), limits: limits as never })).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
      );
      const agent = createAgent({ model: scriptedModel([{ text: 'x' }]) });
      const { events, error } = await collect(agent.run({ input: 'x', limits: limits as never }));
      expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(events.map((e) => e.type)).toEqual(['session.failed']);
    },
  );
});

describe('tool-level failures reach the model; run-level ones end the run', () => {
  it('bad JSON, schema violations, unknown tools and throwing tools are error results', async () => {
    const thrower = tool({
      name: 'thrower',
      description: 't',
      input: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    let turn = 0;
    const agent = createAgent({
      model: {
        specificationVersion: 'muster-model-v1',
        provider: 'test',
        defaultModelName: 'test',
        async *generate() {
          turn++;
          if (turn === 1) {
            yield {
              type: 'tool-call',
              callId: 'a',
              name: 'echo',
              argumentsText: '{"text": ',
            } as const;
            yield {
              type: 'tool-call',
              callId: 'b',
              name: 'echo',
              argumentsText: '{"text": 42}',
            } as const;
            yield { type: 'tool-call', callId: 'c', name: 'echo', argumentsText: '[1,2]' } as const;
            yield { type: 'tool-call', callId: 'd', name: 'thrower', argumentsText: '{}' } as const;
            yield { type: 'tool-call', callId: 'e', name: 'echo', argumentsText: '' } as const;
            yield { type: 'finish', stopReason: 'tool-calls' } as const;
          } else {
            yield { type: 'text-delta', text: 'recovered' } as const;
            yield { type: 'finish', stopReason: 'stop' } as const;
          }
        },
      },
      tools: [echo, thrower],
      policy: { default: 'allow' },
    });
    const { events, error } = await collect(agent.run({ input: 'x' }));
    expect(error).toBeUndefined();
    // read-only calls run concurrently, so completions arrive in any order: look them up by id
    const done = new Map(ofType(events, 'tool.completed').map((d) => [d.callId, d]));
    expect([...'abcde'].map((id) => done.get(id)?.errorCode)).toEqual([
      'TOOL_ARGUMENTS_INVALID',
      'TOOL_ARGUMENTS_INVALID',
      'TOOL_ARGUMENTS_INVALID',
      'TOOL_EXECUTION_FAILED',
      'TOOL_ARGUMENTS_INVALID',
    ]);
    expect(done.get('a')?.content).toContain('not valid JSON');
    expect(done.get('b')?.content).toMatch(/text/);
    expect(done.get('c')?.content).toContain('must be a JSON object');
    expect(done.get('d')?.content).toContain('disk full');
    expect(ofType(events, 'session.completed')[0]?.content).toBe('recovered');
  });

  it('a model failure ends the run: session.failed, then the same error is thrown, and the session is failed', async () => {
    const store = new MemorySessionStore();
    const agent = createAgent({
      sessionStore: store,
      model: {
        specificationVersion: 'muster-model-v1',
        provider: 'test',
        defaultModelName: 'test',
        // eslint-disable-next-line require-yield
        async *generate() {
          throw new Error('upstream 502');
        },
      },
    });
    const { events, error } = await collect(agent.run({ input: 'x', sessionId: 'mf' }));
    expect(error).toMatchObject({ code: 'MODEL_REQUEST_FAILED' });
    expect(error?.message).toContain('upstream 502');
    const failed = ofType(events, 'session.failed')[0];
    expect(failed?.error).toBe(error);
    expect(await store.get('mf')).toMatchObject({
      status: 'failed',
      error: { code: 'MODEL_REQUEST_FAILED' },
    });
  });

  it('a scripted model past its last turn fails with MODEL_RESPONSE_INVALID', async () => {
    const agent = createAgent({ model: scriptedModel([]) });
    await expect(agent.send('x')).rejects.toMatchObject({ code: 'MODEL_RESPONSE_INVALID' });
  });

  it('invalid model output (duplicate call ids, unknown parts, no finish) is MODEL_RESPONSE_INVALID', async () => {
    const parts = [
      [
        { type: 'tool-call', callId: 'x', name: 'echo', argumentsText: '{}' },
        { type: 'tool-call', callId: 'x', name: 'echo', argumentsText: '{}' },
        { type: 'finish', stopReason: 'tool-calls' },
      ],
      [{ type: 'mystery' }],
      [{ type: 'text-delta', text: 'cut' }],
    ];
    for (const list of parts) {
      const agent = createAgent({
        model: {
          specificationVersion: 'muster-model-v1',
          provider: 'test',
          defaultModelName: 'test',
          async *generate() {
            for (const p of list) yield p as never;
          },
        },
      });
      await expect(agent.send('x')).rejects.toMatchObject({ code: 'MODEL_RESPONSE_INVALID' });
    }
  });
});

describe('configuration errors', () => {
  it.each([
    [{ unknownOption: true }, 'unknownOption'],
    [{ model: {} }, 'model'],
    [{ tools: [{ name: 'x' }] }, 'tool('],
    [{ hooks: { beforeTool: 'nope' } }, 'hooks'],
    [{ observability: { onEvent: 1 } }, 'observability'],
    [{ sessionStore: { get() {} } }, 'sessionStore'],
  ])('createAgent(%j) fails with INVALID_CONFIGURATION naming the problem', (options, mention) => {
    expect(() => createAgent(options as never)).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIGURATION',
        message: expect.stringContaining(mention),
      }),
    );
  });

  it('two tools with one name fail with TOOL_NAME_CONFLICT at construction', () => {
    expect(() => createAgent({ tools: [echo, echo] })).toThrow(
      expect.objectContaining({ code: 'TOOL_NAME_CONFLICT' }),
    );
  });

  it.each([
    [{}, 'input'],
    [{ input: 'x', extra: 1 }, 'extra'],
    [{ input: 'x', sessionId: 'a b' }, 'sessionId'],
    [{ inputContent: [{ type: 'image', mimeType: 'image/png' }] }, 'exactly one of data or url'],
    [
      {
        inputContent: [
          { type: 'image', data: 'data:image/png;base64,AAAA', mimeType: 'image/png' },
        ],
      },
      'base64',
    ],
    [{ input: 'x', reasoningEffort: 'extreme' }, 'reasoningEffort'],
  ])('run(%j) fails with INVALID_CONFIGURATION', async (request, mention) => {
    const agent = createAgent({ model: scriptedModel([{ text: 'x' }]) });
    const { error } = await collect(agent.run(request as never));
    expect(error).toMatchObject({
      code: 'INVALID_CONFIGURATION',
      message: expect.stringContaining(mention),
    });
  });

  it('a run without a model fails with INVALID_CONFIGURATION', async () => {
    await expect(createAgent({}).send('x')).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      message: expect.stringContaining('model'),
    });
  });
});
