import { MusterError } from '../errors/index.js';
import type { ModelMessage } from '../model/index.js';
import { utf8Bytes } from '../util/index.js';

/**
 * Counts the tokens of a text, for models whose tokenizer the host has (for example a
 * `tiktoken` encoder: `(text) => enc.encode(text).length`). Must return a whole number >= 0.
 */
export type ContextTokenizer = (text: string) => number;

/** The size of what a model request carries: messages, estimated tokens and bytes. */
export interface ContextMetrics {
  readonly messages: number;
  readonly tokens: number;
  readonly bytes: number;
}

/** The size of one message (or of the system prompt). */
export interface MessageSize {
  readonly tokens: number;
  readonly bytes: number;
}

/** How many distinct texts (system prompts) a meter remembers the size of. */
const TEXT_SIZES = 16;

/** Bytes per token of the estimate used when no tokenizer is given. */
export const BYTES_PER_TOKEN = 4;

/**
 * Tokens counted for one image. Providers bill images by their pixels, not by the length of
 * their base64 text, so an image counts as a flat estimate (about one high-detail tile set).
 */
export const IMAGE_TOKEN_ESTIMATE = 1_600;

/**
 * Measures messages, remembering each message object's size (transcript messages are never
 * changed once appended), so shaping a long transcript before every request stays cheap.
 */
export class MessageMeter {
  readonly #tokenizer: ContextTokenizer | undefined;
  readonly #sizes = new WeakMap<ModelMessage, MessageSize>();
  readonly #texts = new Map<string, MessageSize>();

  constructor(tokenizer?: ContextTokenizer) {
    this.#tokenizer = tokenizer;
  }

  /** The size of one transcript message. */
  message(message: ModelMessage): MessageSize {
    let size = this.#sizes.get(message);
    if (size === undefined) {
      size = this.#measure(message);
      this.#sizes.set(message, size);
    }
    return size;
  }

  /**
   * The size of a plain text (the system prompt), remembered for the last few texts so the
   * host tokenizer does not count the same system prompt before every request.
   */
  text(text: string): MessageSize {
    let size = this.#texts.get(text);
    if (size === undefined) {
      const bytes = utf8Bytes(text);
      size = { bytes, tokens: this.#tokens(text, bytes) };
      if (this.#texts.size >= TEXT_SIZES) this.#texts.delete(this.#texts.keys().next().value!);
      this.#texts.set(text, size);
    }
    return size;
  }

  /** The tokens of a text, not remembered (for one-off texts such as tool definitions). */
  tokens(text: string): number {
    return this.#tokens(text, utf8Bytes(text));
  }

  #measure(message: ModelMessage): MessageSize {
    // JSON.stringify walks the message natively, by recursion: safe because a transcript's
    // tool arguments nest at most MAX_DATA_DEPTH levels (deeper ones are kept as their text,
    // by the model turn and when a stored session is taken up), and nothing else in a
    // message nests more than a few levels
    let imageBytes = 0;
    let images = 0;
    // the message as JSON, with image payloads counted apart (by their own length)
    const json = hasImages(message)
      ? JSON.stringify(message, (_key, value: unknown) => {
          if (!isImage(value)) return value;
          images++;
          imageBytes += (value.data ?? value.url ?? '').length;
          return { type: 'image', mimeType: value.mimeType };
        })
      : JSON.stringify(message);
    const jsonBytes = utf8Bytes(json);
    const tokens = this.#tokenizer
      ? this.#count(plainText(message))
      : Math.ceil(jsonBytes / BYTES_PER_TOKEN);
    return { bytes: jsonBytes + imageBytes, tokens: tokens + images * IMAGE_TOKEN_ESTIMATE };
  }

  #tokens(text: string, bytes: number): number {
    return this.#tokenizer ? this.#count(text) : Math.ceil(bytes / BYTES_PER_TOKEN);
  }

  #count(text: string): number {
    const n = this.#tokenizer!(text);
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `context.tokenizer returned ${String(n)} for a text of ${text.length} characters: it must return a whole number of tokens >= 0.`,
        { details: { option: 'context.tokenizer' } },
      );
    }
    return n;
  }
}

function hasImages(message: ModelMessage): boolean {
  if (message.role === 'tool') return message.media !== undefined && message.media.length > 0;
  return message.role === 'user' && message.content.some((p) => p.type === 'image');
}

function isImage(
  value: unknown,
): value is { type: 'image'; data?: string; url?: string; mimeType: string } {
  return (
    typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'image'
  );
}

/** The text a tokenizer sees for a message: what the model reads, without image payloads. */
function plainText(message: ModelMessage): string {
  switch (message.role) {
    case 'system':
      return message.content;
    case 'tool':
      return `${message.toolName}\n${message.content}`;
    case 'user':
      return message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    case 'assistant':
      return message.content
        .map((p) =>
          p.type === 'tool-call' ? `${p.name} ${JSON.stringify(p.arguments) ?? ''}` : p.text,
        )
        .join('\n');
  }
}
