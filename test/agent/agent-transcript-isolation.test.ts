import { describe, expect, it } from 'vitest';
import { createAgent, MemorySessionStore, scriptedModel } from '../../src/index.js';
import type {
  AssistantMessage,
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolReturn,
  UserContentPart,
} from '../../src/index.js';
import { collect } from '../support/run-helpers.js';

/** A JSON-Schema-only executor that changes the arguments it is given. */
class MutatingExecutor implements ToolExecutor {
  constructor(private readonly during: () => void) {}

  listTools(): readonly ToolDefinition[] {
    return [
      {
        name: 'tag',
        description: 'Tags an item.',
        inputSchema: { type: 'object', properties: { item: { type: 'object' } } },
      },
    ];
  }

  async execute(
    _name: string,
    input: Record<string, unknown>,
    _ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    this.during();
    (input.item as Record<string, unknown>).tagged = true;
    return JSON.stringify(input);
  }
}

describe('transcript isolation', () => {
  it('what the host hands in and what executors change never reaches the stored transcript', async () => {
    const part: { type: 'text'; text: string } = { type: 'text', text: 'Tag item 1.' };
    const inputContent: UserContentPart[] = [part];
    // the host changes its input while the run is going on
    const during = () => {
      part.text = 'changed by the host';
      inputContent.push({ type: 'text', text: 'more' });
    };
    const store = new MemorySessionStore();
    const model = scriptedModel([
      { toolCalls: [{ name: 'tag', arguments: { item: { id: 1 } } }] },
      { text: 'Done.' },
    ]);
    const agent = createAgent({
      model,
      toolExecutor: new MutatingExecutor(during),
      policy: { allow: ['tag'] },
      sessionStore: store,
    });
    const { events, error } = await collect(agent.run({ sessionId: 's1', inputContent }));
    expect(error).toBeUndefined();
    expect(part.text).toBe('changed by the host');

    const completed = events.find((e) => e.type === 'tool.completed');
    expect(completed).toMatchObject({ content: '{"item":{"id":1,"tagged":true}}' });
    const state = (await store.get('s1'))!;
    expect(state.messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Tag item 1.' }],
    });
    const call = (state.messages[1] as AssistantMessage).content.find(
      (p) => p.type === 'tool-call',
    );
    expect(call).toMatchObject({ arguments: { item: { id: 1 } } });
    // the model's next request saw the same unchanged input and arguments
    expect(model.requests[1]!.messages[0]).toEqual(state.messages[0]);
    const seen = (model.requests[1]!.messages[1] as AssistantMessage).content.find(
      (p) => p.type === 'tool-call',
    );
    expect(seen).toMatchObject({ arguments: { item: { id: 1 } } });
    await agent.close();
  });
});
