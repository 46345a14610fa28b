import { AnthropicStream, anthropicErrorBody } from '../fixtures/anthropic-wire-events.js';
import {
  ResponsesStream,
  apiErrorBody,
  chatChunk,
  chatUsageAndDone,
} from '../fixtures/openai-wire-events.js';
import type { WireTurn } from '../fixtures/openai-wire-server.js';

// The three wire formats the five model clients speak, behind one interface so that one set
// of scenarios (provider-kit.test.ts) runs over every client.

/** A tool call a scripted turn makes: its id, name and argument JSON in pieces. */
export interface WireCall {
  readonly id: string;
  readonly name: string;
  readonly args: readonly string[];
}

/** Token counts a scripted turn reports. */
export interface WireUsage {
  readonly input: number;
  readonly output: number;
  readonly cached?: number;
}

/** What a recorded request body carries, read the same way for every format. */
export interface ReadBody {
  /** The tool names offered, in order. */
  readonly toolNames: readonly string[];
  /** Image parts anywhere in the conversation. */
  readonly images: number;
  /** Tool results sent back, by call id. */
  readonly toolResults: Readonly<Record<string, string>>;
  /** Reasoning sent back in assistant turns, in the format's own shape. */
  readonly echoedReasoning: readonly unknown[];
}

/** One vendor wire format: scripted answers and a reader of request bodies. */
export interface WireDialect {
  readonly name: 'chat' | 'responses' | 'anthropic';
  /** A streamed answer with text only. */
  text(deltas: readonly string[], usage?: WireUsage): WireTurn;
  /** A streamed answer that reasons (`reasoning` text, format metadata), then calls tools. */
  reasoningAndCalls(reasoning: string, calls: readonly WireCall[]): WireTurn;
  /** A stream that sends `text` and then holds the connection open. */
  heldText(text: string): WireTurn;
  /** An HTTP 429 rate-limit answer. */
  rateLimited(): WireTurn;
  /** A stream that sends `text`, then a retryable error event. */
  errorAfterText(text: string): WireTurn;
  /** Reads a request body. */
  read(body: Record<string, unknown>): ReadBody;
}

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

export const CHAT: WireDialect = {
  name: 'chat',
  text: (deltas, usage = { input: 20, output: 5 }) => ({
    kind: 'sse',
    events: [
      chatChunk({ role: 'assistant', content: '' }),
      ...deltas.map((content) => chatChunk({ content })),
      chatChunk({}, 'stop'),
      ...chatUsageAndDone({ prompt: usage.input, completion: usage.output, cached: usage.cached }),
    ],
  }),
  reasoningAndCalls: (reasoning, calls) => ({
    kind: 'sse',
    events: [
      chatChunk({ role: 'assistant', reasoning_content: reasoning }),
      ...calls.map((c, index) =>
        chatChunk({
          tool_calls: [
            { index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } },
          ],
        }),
      ),
      ...calls.flatMap((c, index) =>
        c.args.map((a) => chatChunk({ tool_calls: [{ index, function: { arguments: a } }] })),
      ),
      chatChunk({}, 'tool_calls'),
      ...chatUsageAndDone({ prompt: 30, completion: 12 }),
    ],
  }),
  heldText: (text) => ({
    kind: 'sse',
    hold: true,
    events: [chatChunk({ role: 'assistant', content: text })],
  }),
  rateLimited: () => ({
    kind: 'json',
    status: 429,
    body: apiErrorBody('Rate limit reached', 'requests', 'rate_limit_exceeded'),
  }),
  errorAfterText: (text) => ({
    kind: 'sse',
    events: [
      chatChunk({ role: 'assistant', content: text }),
      {
        data: {
          error: { message: 'The server had an error', type: 'server_error', code: 'server_error' },
        },
      },
    ],
  }),
  read: (body) => {
    const messages = list(body['messages']);
    return {
      toolNames: list(body['tools']).map((t) => (t['function'] as Json)['name'] as string),
      images: messages.flatMap((m) => list(m['content'])).filter((p) => p['type'] === 'image_url')
        .length,
      toolResults: Object.fromEntries(
        messages
          .filter((m) => m['role'] === 'tool')
          .map((m) => [m['tool_call_id'] as string, m['content'] as string]),
      ),
      echoedReasoning: messages
        .filter((m) => m['role'] === 'assistant' && m['reasoning_content'] !== undefined)
        .map((m) => m['reasoning_content']),
    };
  },
};

export const RESPONSES: WireDialect = {
  name: 'responses',
  text: (deltas, usage = { input: 20, output: 5 }) => ({
    kind: 'sse',
    events: new ResponsesStream('resp_text')
      .text('msg_1', deltas)
      .completed({ input: usage.input, output: usage.output, cached: usage.cached }),
  }),
  reasoningAndCalls: (reasoning, calls) => {
    const stream = new ResponsesStream('resp_calls').reasoning('rs_1', [reasoning], 'ENCRYPTED-1');
    for (const [i, c] of calls.entries()) stream.functionCall(`fc_${i}`, c.id, c.name, c.args);
    return { kind: 'sse', events: stream.completed({ input: 30, output: 12, reasoning: 4 }) };
  },
  heldText: (text) => ({
    kind: 'sse',
    hold: true,
    events: new ResponsesStream('resp_held')
      .emit('response.output_item.added', {
        output_index: 0,
        item: {
          id: 'msg_h',
          type: 'message',
          role: 'assistant',
          status: 'in_progress',
          content: [],
        },
      })
      .emit('response.output_text.delta', {
        item_id: 'msg_h',
        output_index: 0,
        content_index: 0,
        delta: text,
        logprobs: [],
      }).events,
  }),
  rateLimited: () => ({
    kind: 'json',
    status: 429,
    body: apiErrorBody('Rate limit reached', 'requests', 'rate_limit_exceeded'),
  }),
  errorAfterText: (text) => ({
    kind: 'sse',
    events: new ResponsesStream('resp_err')
      .emit('response.output_item.added', {
        output_index: 0,
        item: {
          id: 'msg_e',
          type: 'message',
          role: 'assistant',
          status: 'in_progress',
          content: [],
        },
      })
      .emit('response.output_text.delta', {
        item_id: 'msg_e',
        output_index: 0,
        content_index: 0,
        delta: text,
        logprobs: [],
      })
      .emit('error', { code: 'server_error', message: 'The server had an error', param: null })
      .events,
  }),
  read: (body) => {
    const input = list(body['input']);
    return {
      toolNames: list(body['tools']).map((t) => t['name'] as string),
      images: input.flatMap((m) => list(m['content'])).filter((p) => p['type'] === 'input_image')
        .length,
      toolResults: Object.fromEntries(
        input
          .filter((m) => m['type'] === 'function_call_output')
          .map((m) => [m['call_id'] as string, m['output'] as string]),
      ),
      echoedReasoning: input
        .filter((m) => m['type'] === 'reasoning')
        .map((m) => ({ id: m['id'], encrypted_content: m['encrypted_content'] })),
    };
  },
};

export const ANTHROPIC: WireDialect = {
  name: 'anthropic',
  text: (deltas, usage = { input: 20, output: 5 }) => ({
    kind: 'sse',
    events: new AnthropicStream('msg_text', { input: usage.input, output: 1 })
      .text(deltas)
      .stop('end_turn', { input: usage.input, output: usage.output, cacheRead: usage.cached }),
  }),
  reasoningAndCalls: (reasoning, calls) => {
    const stream = new AnthropicStream('msg_calls').thinking([reasoning], 'SIG-1').ping();
    for (const c of calls) stream.toolUse(c.id, c.name, c.args);
    return { kind: 'sse', events: stream.stop('tool_use', { input: 30, output: 12 }) };
  },
  heldText: (text) => ({
    kind: 'sse',
    hold: true,
    events: new AnthropicStream('msg_held').partialText(text).ping().open(),
  }),
  rateLimited: () => ({
    kind: 'json',
    status: 429,
    body: anthropicErrorBody('rate_limit_error', 'Number of requests has exceeded your rate limit'),
  }),
  errorAfterText: (text) => ({
    kind: 'sse',
    events: new AnthropicStream('msg_err')
      .partialText(text)
      .error('overloaded_error', 'Overloaded'),
  }),
  read: (body) => {
    const blocks = list(body['messages']).flatMap((m) =>
      list(m['content']).map((b) => ({ role: m['role'], block: b })),
    );
    const nested = blocks.flatMap(({ block }) =>
      block['type'] === 'tool_result' ? list(block['content']) : [],
    );
    return {
      toolNames: list(body['tools']).map((t) => t['name'] as string),
      images: [...blocks.map((b) => b.block), ...nested].filter((b) => b['type'] === 'image')
        .length,
      toolResults: Object.fromEntries(
        blocks
          .filter(({ block }) => block['type'] === 'tool_result')
          .map(({ block }) => [block['tool_use_id'] as string, toolResultText(block['content'])]),
      ),
      echoedReasoning: blocks
        .filter(
          ({ block }) => block['type'] === 'thinking' || block['type'] === 'redacted_thinking',
        )
        .map(({ block }) => block),
    };
  },
};

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .filter((b) => b['type'] === 'text')
    .map((b) => b['text'] as string)
    .join('');
}
