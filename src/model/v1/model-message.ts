/**
 * The neutral transcript every provider translates to and from. It is JSON-serializable so
 * that session stores can keep it as it is; binary media lives only in transient fields.
 */
import type { AssistantContentPart, ImagePart, UserContentPart } from './model-content-part.js';
import type { ProviderMetadata } from './provider-metadata.js';

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
  /**
   * Who decided this call when its run had parked on it (SPEC 15.1): the wait, the decision
   * applied, the reason given and when. Kept in the transcript; providers do not send it.
   */
  readonly decidedBy?: {
    readonly waitId: string;
    readonly decision: string;
    readonly reason?: string;
    readonly decidedAt?: string;
  };
}

/** Any transcript message. */
export type ModelMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;
