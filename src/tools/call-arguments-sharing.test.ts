import { describe, expect, it } from 'vitest';
import { ToolPolicy } from '../policy/index.js';
import { deepFreeze } from '../util/index.js';
import { OWN_EXECUTOR_FACTS, ToolCatalog, runToolCall } from './index.js';
import type {
  OwnExecutorFacts,
  ToolCallEnvironment,
  ToolDefinition,
  ToolEvent,
  ToolExecutionContext,
  ToolExecutor,
  ToolReturn,
} from './index.js';

const DEFINITION: ToolDefinition = {
  name: 'tag',
  description: 'Adds a tag to an item.',
  inputSchema: {
    type: 'object',
    properties: { item: { type: 'object' }, tags: { type: 'array' } },
    required: ['item'],
  },
};

/** A JSON-Schema-only executor (validated by ajv, which hands the value on as it is). */
class MutatingExecutor implements ToolExecutor {
  seen: Record<string, unknown> | undefined;
  calledSynchronously: boolean | undefined;
  hop = false;
  readonly [OWN_EXECUTOR_FACTS]: OwnExecutorFacts;

  constructor(
    private readonly body: (input: Record<string, unknown>, ctx: ToolExecutionContext) => unknown,
    settlesOnAbort?: boolean,
  ) {
    // stated as Muster's own executors state it: a host executor cannot
    this[OWN_EXECUTOR_FACTS] = settlesOnAbort ? { settlesOnAbort: true } : {};
  }

  listTools(): readonly ToolDefinition[] {
    return [DEFINITION];
  }

  execute(
    _name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    this.calledSynchronously = !this.hop;
    this.seen = input;
    return this.body(input, ctx) as Promise<ToolReturn>;
  }
}

async function run(
  executor: MutatingExecutor,
  parsed: unknown,
  text: string,
  signal = new AbortController().signal,
) {
  const events: ToolEvent[] = [];
  const env: ToolCallEnvironment = {
    sessionId: 's1',
    runId: 'r1',
    signal,
    catalog: await ToolCatalog.build([executor]),
    policy: new ToolPolicy({ allow: ['tag'] }),
    beforeTool: [],
    afterTool: [],
    maxToolArgumentBytes: 1000,
    maxToolArgumentDepth: 64,
    maxToolResultBytes: 1000,
    emit: (e) => {
      events.push(e);
      // a microtask hop before execute would let this run first
      if (e.type === 'tool.called') queueMicrotask(() => (executor.hop = true));
    },
  };
  const outcome = await runToolCall(
    { callId: 'c1', name: 'tag', argumentsText: text, arguments: parsed, iteration: 1 },
    env,
  );
  return { outcome, events };
}

describe('arguments parsed once and shared', () => {
  it('an executor that changes its arguments gets its own copy; the shared value stays as it was', async () => {
    const text = '{"item":{"id":1},"tags":["a"]}';
    const shared = deepFreeze(JSON.parse(text) as Record<string, unknown>);
    const executor = new MutatingExecutor(async (input) => {
      (input.item as Record<string, unknown>).id = 2;
      (input.tags as string[]).push('b');
      input.extra = true;
      return 'tagged';
    });
    const { outcome } = await run(executor, shared, text);
    expect(outcome.result).toEqual({ content: 'tagged' });
    expect(executor.seen).toEqual({ item: { id: 2 }, tags: ['a', 'b'], extra: true });
    expect(shared).toEqual({ item: { id: 1 }, tags: ['a'] });
  });

  it('uses the parsed value instead of the text (and still applies the size limit to the text)', async () => {
    const executor = new MutatingExecutor(async (input) => JSON.stringify(input));
    const shared = deepFreeze({ item: { from: 'parsed' } });
    const { outcome } = await run(executor, shared, '{"item":{"from":"text"}}');
    expect(outcome.result.content).toBe('{"item":{"from":"parsed"}}');

    const tooLong = `{"item":{"pad":"${'x'.repeat(1000)}"}}`;
    const refused = await run(executor, deepFreeze(JSON.parse(tooLong)), tooLong);
    expect(refused.outcome.errorCode).toBe('TOOL_ARGUMENTS_INVALID');
  });

  it('parses the text when the value given is not a frozen parse (a caller-built object)', async () => {
    const executor = new MutatingExecutor(async (input) => JSON.stringify(input));
    const { outcome } = await run(
      executor,
      { item: { from: 'object' } },
      '{"item":{"from":"text"}}',
    );
    expect(outcome.result.content).toBe('{"item":{"from":"text"}}');
  });
});

describe('a host validator', () => {
  it('that fills in defaults in place gets its own copy; the shared value stays as it was', async () => {
    const text = '{"item":{"id":1}}';
    const shared = deepFreeze(JSON.parse(text) as Record<string, unknown>);
    const executor = new MutatingExecutor(async (input) => JSON.stringify(input));
    Object.assign(executor, {
      validateInput: (_name: string, value: Record<string, unknown>) => {
        value.tags ??= ['default'];
        return { success: true as const, value };
      },
    });
    const { outcome } = await run(executor, shared, text);
    expect(outcome.errorCode).toBeUndefined();
    expect(outcome.result.content).toBe('{"item":{"id":1},"tags":["default"]}');
    expect(shared).toEqual({ item: { id: 1 } });
  });
});

describe('execution', () => {
  it('calls execute at once after tool.called, with no microtask hop', async () => {
    const executor = new MutatingExecutor(async () => 'ok');
    await run(executor, undefined, '{"item":{}}');
    expect(executor.calledSynchronously).toBe(true);
  });

  it('a synchronous throw of execute is a failed call', async () => {
    const executor = new MutatingExecutor(() => {
      throw new Error('boom');
    });
    const { outcome } = await run(executor, undefined, '{"item":{}}');
    expect(outcome.errorCode).toBe('TOOL_EXECUTION_FAILED');
    expect(outcome.result.content).toContain('boom');
  });

  it('an executor that settles on abort is not raced: its own rejection ends the call, as unknown', async () => {
    const controller = new AbortController();
    let listeners = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    }) as typeof signal.addEventListener;
    const executor = new MutatingExecutor(
      (_input, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => reject(new Error('cancelled')), {
            once: true,
          });
          controller.abort();
        }),
      true,
    );
    const { outcome } = await run(executor, undefined, '{"item":{}}', signal);
    expect(outcome.errorCode).toBe('TOOL_OUTCOME_UNKNOWN');
    expect(outcome.executed).toBe(true);
    // only the executor's own listener: the pipeline added none
    expect(listeners).toBe(1);
  });

  it('an executor that ignores its signal is still ended at once by an abort', async () => {
    const controller = new AbortController();
    const executor = new MutatingExecutor(() => {
      controller.abort();
      return new Promise(() => undefined);
    });
    const { outcome } = await run(executor, undefined, '{"item":{}}', controller.signal);
    expect(outcome.errorCode).toBe('TOOL_OUTCOME_UNKNOWN');
  });
});
