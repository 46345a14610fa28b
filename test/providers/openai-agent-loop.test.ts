import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, tool } from '../../src/index.js';
import { openaiChat, openaiResponses } from '../../src/providers/openai.js';
import { chatChunk, chatUsageAndDone, ResponsesStream } from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { collect, ofType } from '../support/run-helpers.js';

// Both providers drive a whole agent run against a loopback server speaking the real
// streaming wire format; the official `openai` client does the HTTP.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

const client = () =>
  new OpenAI({ apiKey: 'sk-loop-test', baseURL: `${server.url}/v1`, maxRetries: 0 });

function weatherTool(seen: string[]) {
  return tool({
    name: 'get_weather',
    description: 'Weather for a city.',
    input: z.object({ city: z.string() }),
    annotations: { readOnlyHint: true },
    execute: ({ city }) => {
      seen.push(city);
      return `${city}: ${city === 'Oslo' ? 4 : 19}C`;
    },
  });
}

describe('openaiChat drives a multi-turn run with parallel tool calls', () => {
  it('runs both calls, sends both results back, and finishes', async () => {
    const callDelta = (index: number, fields: Record<string, unknown>) =>
      chatChunk({ tool_calls: [{ index, ...fields }] });
    server.script(
      {
        kind: 'sse',
        events: [
          chatChunk({ role: 'assistant', content: 'Checking. ' }),
          callDelta(0, {
            id: 'call_oslo',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          }),
          callDelta(1, {
            id: 'call_rome',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          }),
          callDelta(0, { function: { arguments: '{"city":' } }),
          callDelta(1, { function: { arguments: '{"city":"Rome"}' } }),
          callDelta(0, { function: { arguments: '"Oslo"}' } }),
          chatChunk({}, 'tool_calls'),
          ...chatUsageAndDone({ prompt: 40, completion: 20 }),
        ],
      },
      {
        kind: 'sse',
        events: [
          chatChunk({ content: 'Oslo is cold; ' }),
          chatChunk({ content: 'Rome is warm.' }),
          chatChunk({}, 'stop'),
          ...chatUsageAndDone({ prompt: 90, completion: 8 }),
        ],
      },
    );
    const seen: string[] = [];
    const store = new MemorySessionStore();
    const agent = createAgent({
      model: openaiChat({ client: client() }),
      modelName: 'gpt-test',
      system: 'Be brief.',
      tools: [weatherTool(seen)],
      policy: { allow: ['get_weather'] },
      sessionStore: store,
    });
    const { events, error } = await collect(
      agent.run({
        input: 'Weather in Oslo and Rome?',
        sessionId: 'chat-run',
        reasoningEffort: 'low',
      }),
    );
    expect(error).toBeUndefined();
    expect(seen.sort()).toEqual(['Oslo', 'Rome']);
    expect(ofType(events, 'model.completed')[0]?.toolCalls).toEqual([
      { callId: 'call_oslo', name: 'get_weather', arguments: { city: 'Oslo' } },
      { callId: 'call_rome', name: 'get_weather', arguments: { city: 'Rome' } },
    ]);
    expect(ofType(events, 'session.completed')[0]).toMatchObject({
      content: 'Oslo is cold; Rome is warm.',
      usage: { inputTokens: 130, outputTokens: 28, totalTokens: 158 },
    });
    const second = server.requests[1]!.body as {
      messages: Record<string, unknown>[];
      reasoning_effort?: string;
      tools: unknown[];
    };
    expect(second.reasoning_effort).toBe('low');
    expect(second.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
    ]);
    expect(second.messages[2]).toMatchObject({
      content: 'Checking. ',
      tool_calls: [
        { id: 'call_oslo', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        { id: 'call_rome', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
      ],
    });
    expect(second.messages.slice(3)).toEqual([
      { role: 'tool', tool_call_id: 'call_oslo', content: 'Oslo: 4C' },
      { role: 'tool', tool_call_id: 'call_rome', content: 'Rome: 19C' },
    ]);
    expect(JSON.stringify(await store.get('chat-run'))).not.toContain('sk-loop-test');
  });
});

describe('openaiResponses drives a multi-turn run with parallel tool calls', () => {
  it('keeps provider metadata (item ids, reasoning) across turns and continues the session', async () => {
    const first = new ResponsesStream('resp_1')
      .reasoning('rs_1', ['Need both cities.'], 'ENCRYPTED-1')
      .functionCall('fc_1', 'call_a', 'get_weather', ['{"city"', ':"Oslo"}'])
      .functionCall('fc_2', 'call_b', 'get_weather', ['{"city":"Lima"}'])
      .completed({ input: 30, output: 12, reasoning: 5 });
    const second = new ResponsesStream('resp_2')
      .text('msg_2', ['Oslo ', 'cold, Lima warm.'])
      .completed({ input: 80, output: 6 });
    const third = new ResponsesStream('resp_3')
      .text('msg_3', ['You are welcome.'])
      .completed({ input: 100, output: 4 });
    server.script(
      { kind: 'sse', events: first },
      { kind: 'sse', events: second },
      { kind: 'sse', events: third },
    );
    const seen: string[] = [];
    const agent = createAgent({
      model: openaiResponses({ client: client() }),
      modelName: 'gpt-test',
      tools: [weatherTool(seen)],
      policy: { allow: ['get_weather'] },
    });
    const run = await collect(
      agent.run({ input: 'Oslo and Lima?', sessionId: 'resp-run', reasoningEffort: 'high' }),
    );
    expect(run.error).toBeUndefined();
    expect(seen.sort()).toEqual(['Lima', 'Oslo']);
    expect(
      ofType(run.events, 'model.delta')
        .filter((d) => d.kind === 'reasoning')
        .map((d) => d.content),
    ).toEqual(['Need both cities.']);
    const body = server.requests[1]!.body as {
      input: Record<string, unknown>[];
      reasoning?: unknown;
    };
    expect(body.reasoning).toEqual({ effort: 'high' });
    expect(body.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'Oslo and Lima?' }] },
      expect.objectContaining({ type: 'reasoning', id: 'rs_1', encrypted_content: 'ENCRYPTED-1' }),
      expect.objectContaining({
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_a',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
      }),
      expect.objectContaining({
        type: 'function_call',
        id: 'fc_2',
        call_id: 'call_b',
        arguments: '{"city":"Lima"}',
      }),
      { type: 'function_call_output', call_id: 'call_a', output: 'Oslo: 4C' },
      { type: 'function_call_output', call_id: 'call_b', output: 'Lima: 19C' },
    ]);
    const reply = await agent.send('Thanks!', { sessionId: 'resp-run' });
    expect(reply.text).toBe('You are welcome.');
    const third3 = server.requests[2]!.body as { input: Record<string, unknown>[] };
    expect(third3.input).toHaveLength(8);
    expect(third3.input.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'input_text', text: 'Thanks!' }],
    });
  });
});
