import { MusterError } from '../errors/index.js';
import type { UserContentPart } from '../model/index.js';
import type { QueryContentBlock, QueryUserMessage } from './query-types.js';

/** One user turn as the agent takes it. */
export type UserTurn = { readonly input: string } | { readonly inputContent: UserContentPart[] };

/**
 * The user turns of a query: the prompt (a string, or an `AsyncIterable` of user messages)
 * and every stream given to `streamInput()`, read in the background into one queue. The
 * query ends once every source is exhausted and the queue is empty.
 */
export class QueryInput {
  readonly #turns: UserTurn[] = [];
  readonly #iterators = new Set<AsyncIterator<unknown>>();
  #open = 0;
  #closed = false;
  #failure: unknown;
  #wake: (() => void) | undefined;

  constructor(prompt: string | AsyncIterable<QueryUserMessage>) {
    if (typeof prompt === 'string') this.#turns.push({ input: prompt });
    else void this.add(prompt);
  }

  /** Reads another stream of user messages into the queue; resolves once it is read. */
  add(stream: AsyncIterable<QueryUserMessage>): Promise<void> {
    if (this.#closed) throw new MusterError('INVALID_CONFIGURATION', 'The query is closed.');
    if (!stream || typeof (stream as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function')
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'A prompt stream must be an AsyncIterable of user messages.',
      );
    this.#open++;
    return this.#pump(stream[Symbol.asyncIterator]());
  }

  /** The next user turn, or undefined once every source is exhausted (or closed). */
  async next(): Promise<UserTurn | undefined> {
    for (;;) {
      if (this.#failure !== undefined) throw this.#failure;
      const turn = this.#turns.shift();
      if (turn) return turn;
      if (this.#closed || this.#open === 0) return undefined;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** Stops reading every source. */
  close(): void {
    this.#closed = true;
    for (const it of this.#iterators) void it.return?.().catch(() => undefined);
    this.#notify();
  }

  async #pump(it: AsyncIterator<QueryUserMessage>): Promise<void> {
    this.#iterators.add(it);
    try {
      while (!this.#closed) {
        const step = await it.next();
        if (step.done) break;
        this.#turns.push(toUserTurn(step.value));
        this.#notify();
      }
    } catch (err) {
      this.#failure ??= err;
    } finally {
      this.#iterators.delete(it);
      this.#open--;
      this.#notify();
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** A reference-SDK user message as an agent turn (text, or text and image parts). */
export function toUserTurn(message: QueryUserMessage): UserTurn {
  const content = message?.message?.content;
  if (message?.type !== 'user' || message.message.role !== 'user')
    throw new MusterError(
      'INVALID_CONFIGURATION',
      "A prompt stream must yield { type: 'user', message: { role: 'user', content } }.",
    );
  if (typeof content === 'string') return { input: content };
  if (!Array.isArray(content))
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'A user message content must be a string or content blocks.',
    );
  return { inputContent: content.map(toPart) };
}

function toPart(block: QueryContentBlock): UserContentPart {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'image' && block.source?.type === 'base64')
    return { type: 'image', data: block.source.data, mimeType: block.source.media_type };
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `A user message may carry text and base64 image blocks, not '${block.type}'.`,
  );
}
