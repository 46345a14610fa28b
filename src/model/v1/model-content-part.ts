import type { ProviderMetadata } from './provider-metadata.js';

/** A text part of a user or assistant message. */
export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

/** An image given inline (base64) or by URL. */
export interface ImagePart {
  readonly type: 'image';
  /** Base64 data (no `data:` prefix) when the image is inline. */
  readonly data?: string;
  /** An `https:` or `data:` URL when the image is referenced. */
  readonly url?: string;
  readonly mimeType: string;
}

/** What a user message may carry. */
export type UserContentPart = TextPart | ImagePart;

/** Model reasoning kept in the transcript so providers that need it get it back. */
export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  readonly providerMetadata?: ProviderMetadata;
}

/** A call the model asked for. `arguments` is the parsed JSON object. */
export interface ToolCallPart {
  readonly type: 'tool-call';
  readonly callId: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly providerMetadata?: ProviderMetadata;
}

/** What an assistant message may carry, in the order the model produced it. */
export type AssistantContentPart = TextPart | ReasoningPart | ToolCallPart;
