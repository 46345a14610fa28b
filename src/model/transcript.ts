/**
 * The neutral transcript every provider translates to and from. It is JSON-serializable so
 * that session stores can keep it as it is; binary media lives only in transient fields.
 */

/** Opaque per-provider data that must travel back to the same provider on later turns. */
export type ProviderMetadata = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** A text part of a user message. */
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

/** A system (or developer) instruction. */
export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

/** A user turn. */
export interface UserMessage {
  readonly role: 'user';
  readonly content: readonly UserContentPart[];
}

/** One model turn. `incomplete` marks a turn cut short by an abort or a failure. */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: readonly AssistantContentPart[];
  readonly providerMetadata?: ProviderMetadata;
  readonly incomplete?: boolean;
}

/**
 * The result of one tool call as the model reads it. `media` (bounded images) is forwarded
 * to the next model turn and is never written to a session store.
 */
export interface ToolResultMessage {
  readonly role: 'tool';
  readonly callId: string;
  readonly toolName: string;
  readonly content: string;
  readonly isError: boolean;
  readonly media?: readonly ImagePart[];
}

/** Any transcript message. */
export type ModelMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;
