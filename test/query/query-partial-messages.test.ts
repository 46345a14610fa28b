/**
 * item-06: `query({ options: { includePartialMessages: true } })` yields `stream_event`
 * messages (partial assistant messages: Anthropic raw stream events) for text and reasoning
 * deltas as they arrive, before the turn's whole `assistant` message; without it, none.
 */
import { describe, expect, it } from 'vitest';
import { MusterError } from '../../src/index.js';
import type { ModelClientV1, ModelPart } from '../../src/index.js';
import { query } from '../../src/query/index.js';
import type {
  QueryMessage,
  QueryRawStreamEvent,
  QueryStreamEventMessage,
} from '../../src/query/index.js';

/** What the model and the reader did, in the order they did it. */
type Log = string[];

/**
 * A fake model (a scripted model cannot pace its stream): each turn's parts are yielded in
 * order, and a part marked `after` is held until the reader has seen that text arrive as a
 * `stream_event`, which proves the deltas reach the host as they are produced.
 */
function pacedModel(
  turns: readonly (readonly (ModelPart & { after?: string })[])[],
  log: Log,
  seen: (text: string) => Promise<void>,
): ModelClientV1 {
  let next = 0;
  return {
    specificationVersion: 'muster-model-v1',
    provider: 'paced',
    defaultModelName: 'paced-1',
    async *generate() {
      for (const { after, ...part } of turns[next++] ?? []) {
        if (after !== undefined) await seen(after);
        if (part.type === 'text-delta' || part.type === 'reasoning-delta')
          log.push(`model: ${part.text}`);
        yield part as ModelPart;
      }
    },
  };
}

const TURNS = [
  [
    { type: 'reasoning-delta', text: 'Let me ' },
    { type: 'reasoning-delta', text: 'think.', after: 'Let me ' },
    { type: 'text-delta', text: 'Looking ' },
    { type: 'text-delta', text: 'it up.', after: 'Looking ' },
    { type: 'tool-call', callId: 'c1', name: 'mcp__none__find', argumentsText: '{"q":"x"}' },
    { type: 'finish', stopReason: 'tool-calls' },
  ],
  [
    { type: 'text-delta', text: 'Hello ' },
    { type: 'text-delta', text: 'world', after: 'Hello ' },
    { type: 'finish', stopReason: 'stop' },
  ],
] as const;

/** Runs a query over the paced model and records what the reader saw, as it saw it. */
async function run(includePartialMessages: boolean | undefined) {
  const log: Log = [];
  const waiters = new Map<string, () => void>();
  const arrived = new Set<string>();
  const seen = (text: string) =>
    arrived.has(text)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.set(text, resolve));
  const model = pacedModel(TURNS as never, log, includePartialMessages ? seen : async () => {});
  const messages: QueryMessage[] = [];
  const q = query({
    prompt: 'hi',
    options: {
      model,
      strictMcpConfig: true,
      ...(includePartialMessages === undefined ? {} : { includePartialMessages }),
    },
  });
  for await (const m of q) {
    messages.push(m);
    log.push(`reader: ${m.type}`);
    if (m.type === 'stream_event' && m.event.type === 'content_block_delta') {
      const d = m.event.delta;
      const text = d.type === 'text_delta' ? d.text : d.type === 'thinking_delta' ? d.thinking : '';
      log.push(`reader: delta ${text}`);
      arrived.add(text);
      waiters.get(text)?.();
    }
  }
  return { messages, log };
}

const events = (messages: QueryMessage[]): QueryRawStreamEvent[] =>
  messages
    .filter((m): m is QueryStreamEventMessage => m.type === 'stream_event')
    .map((m) => m.event);

describe('item-06: query() partial assistant messages', () => {
  it('yields each turn’s raw stream events as the deltas arrive, before its assistant message', async () => {
    const { messages, log } = await run(true);

    // the reader saw a delta before the model produced the next one
    const at = (line: string) => log.indexOf(line);
    expect(at('reader: delta Let me ')).toBeGreaterThan(-1);
    expect(at('reader: delta Let me ')).toBeLessThan(at('model: think.'));
    expect(at('reader: delta Looking ')).toBeLessThan(at('model: it up.'));
    expect(at('reader: delta Hello ')).toBeLessThan(at('model: world'));

    // per turn: stream events, then the assistant message; the tool result; the result
    const kinds = messages.map((m) => m.type);
    expect(kinds[0]).toBe('system');
    expect(kinds.at(-1)).toBe('result');
    const assistants = messages.flatMap((m, i) => (m.type === 'assistant' ? [i] : []));
    expect(assistants).toHaveLength(2);
    const firstTurn = messages.slice(1, assistants[0]);
    const secondTurn = messages.slice(assistants[0]! + 2, assistants[1]);
    expect(messages[assistants[0]! + 1]!.type).toBe('user');
    for (const turn of [firstTurn, secondTurn]) {
      expect(turn.length).toBeGreaterThan(0);
      expect(turn.every((m) => m.type === 'stream_event')).toBe(true);
    }

    expect(events(firstTurn)).toEqual([
      {
        type: 'message_start',
        message: {
          id: expect.stringMatching(/^msg_/),
          type: 'message',
          role: 'assistant',
          model: 'paced-1',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: expect.objectContaining({ input_tokens: 0, output_tokens: 0 }),
        },
      },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'Let me ' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'think.' },
      },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Looking ' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'it up.' } },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'c1', name: 'mcp__none__find', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: '{"q":"x"}' },
      },
      { type: 'content_block_stop', index: 2 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool-calls', stop_sequence: null },
        usage: expect.any(Object),
      },
      { type: 'message_stop' },
    ]);

    // the assistant message has the stream's id and the text the deltas carried
    const start = (turn: QueryMessage[]) =>
      (events(turn)[0] as Extract<QueryRawStreamEvent, { type: 'message_start' }>).message.id;
    const [a1, a2] = assistants.map((i) => messages[i]!);
    expect(a1).toMatchObject({
      message: {
        id: start(firstTurn),
        content: [
          { type: 'text', text: 'Looking it up.' },
          { type: 'tool_use', id: 'c1', input: { q: 'x' } },
        ],
      },
    });
    expect(start(secondTurn)).not.toBe(start(firstTurn));
    expect(a2).toMatchObject({
      message: { id: start(secondTurn), content: [{ type: 'text', text: 'Hello world' }] },
    });
    const text = events(secondTurn).flatMap((e) =>
      e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? [e.delta.text] : [],
    );
    expect(text.join('')).toBe('Hello world');

    // every stream event is a partial assistant message of the query's session
    for (const m of messages)
      if (m.type === 'stream_event') {
        expect(m.parent_tool_use_id).toBeNull();
        expect(m.session_id).toBe(messages[0]!.session_id);
        expect(m.uuid).toMatch(/^[0-9a-f-]{36}$/);
      }
  });

  it.each([undefined, false])('with includePartialMessages %s: no stream_event', async (flag) => {
    const { messages } = await run(flag);
    expect(messages.map((m) => m.type)).toEqual([
      'system',
      'assistant',
      'user',
      'assistant',
      'result',
    ]);
  });

  it('refuses a value that is not a boolean', () => {
    const q = () =>
      query({
        prompt: 'hi',
        options: {
          model: pacedModel([], [], async () => {}),
          includePartialMessages: 'yes' as never,
        },
      });
    expect(q).toThrow(MusterError);
    expect(q).toThrow(/includePartialMessages/);
  });
});
