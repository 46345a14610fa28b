import { afterAll, describe, expect, it } from 'vitest';
import { createAgent, MemorySessionStore, scriptedModel } from '../../src/index.js';
import type { ToolDefinition, ToolExecutor } from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

// `ToolExecutor` no longer has `readsInputOnly` or `settlesOnAbort` (issue 24): a host
// executor that still sets them gets the safe behaviour, and its source no longer compiles.

const TAG: ToolDefinition = {
  name: 'tag',
  description: 'Tags an item.',
  inputSchema: {
    type: 'object',
    properties: { item: { type: 'object' }, tags: { type: 'array' } },
    required: ['item'],
  },
};

const HANG: ToolDefinition = {
  name: 'hang',
  description: 'Never answers and ignores its signal.',
  inputSchema: { type: 'object', properties: {} },
};

const agents: { close(): Promise<void> }[] = [];
afterAll(() => Promise.all(agents.map((a) => a.close())));

describe('a host executor that sets the removed flags', () => {
  it('readsInputOnly: its arguments are still a copy, so its changes reach no transcript', async () => {
    const mutating: ToolExecutor = {
      listTools: () => [TAG],
      // @ts-expect-error readsInputOnly is no longer part of ToolExecutor (see docs/migrating.md)
      readsInputOnly: true,
      execute: (_name, input) => {
        (input.item as Record<string, unknown>).id = 2;
        (input.tags as string[]).push('changed');
        input.extra = true;
        return Promise.resolve(JSON.stringify(input));
      },
    };
    const args = { item: { id: 1 }, tags: ['a'] };
    const model = scriptedModel([
      { toolCalls: [{ name: 'tag', arguments: args }] },
      { text: 'tagged' },
    ]);
    const store = new MemorySessionStore();
    const agent = createAgent({
      model,
      toolExecutor: mutating,
      sessionStore: store,
      policy: { allow: ['tag'] },
    });
    agents.push(agent);
    const { events, error } = await collect(agent.run({ input: 'tag it', sessionId: 'flags' }));
    expect(error).toBeUndefined();
    // the executor changed its own copy: the result shows the change...
    expect(ofType(events, 'tool.completed')[0]!.content).toBe(
      '{"item":{"id":2},"tags":["a","changed"],"extra":true}',
    );
    // ...while the call's arguments, as the model and the store have them, are untouched
    const second = model.requests[1]!.messages.find((m) => m.role === 'assistant');
    const part = second?.content.find((p) => p.type === 'tool-call');
    expect(part).toMatchObject({ name: 'tag', arguments: args });
    const stored = (await store.get('flags'))!.messages.find((m) => m.role === 'assistant');
    expect(stored?.content.find((p) => p.type === 'tool-call')).toMatchObject({
      arguments: args,
    });
  });

  it('settlesOnAbort: a call that ignores its signal still ends at the abort', async () => {
    const controller = new AbortController();
    const hanging: ToolExecutor = {
      listTools: () => [HANG],
      // @ts-expect-error settlesOnAbort is no longer part of ToolExecutor (see docs/migrating.md)
      settlesOnAbort: true,
      execute: () => {
        controller.abort(new Error('the user stopped it'));
        return new Promise(() => undefined);
      },
    };
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'hang', arguments: {} }] }, { text: 'never' }]),
      toolExecutor: hanging,
      policy: { allow: ['hang'] },
    });
    agents.push(agent);
    const { events, error } = await collect(
      agent.run({ input: 'hang', signal: controller.signal }),
    );
    expect(error?.code).toBe('ABORTED');
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      toolName: 'hang',
      errorCode: 'TOOL_OUTCOME_UNKNOWN',
    });
  });
});
