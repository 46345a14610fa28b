import type { AssistantContentPart, ModelMessage } from '../model/index.js';
import { dataDepth, deepFreeze, jsonText, MAX_DATA_DEPTH } from '../util/index.js';

/**
 * The stored form of a message: binary media is never persisted. A message without media is
 * returned as it is; one with media becomes a new deep-frozen message (its other parts shared).
 */
export function withoutMedia(message: ModelMessage): ModelMessage {
  if (message.role === 'tool' && message.media) {
    const { media, ...rest } = message;
    return deepFreeze({
      ...rest,
      content: `${rest.content}\n[${media.length} image(s) were shown to the model and not stored]`,
    });
  }
  if (
    message.role === 'user' &&
    message.content.some((p) => p.type === 'image' && p.data !== undefined)
  ) {
    return deepFreeze({
      role: 'user',
      content: message.content.map((p) =>
        p.type === 'image' && p.data !== undefined
          ? { type: 'text' as const, text: `[${p.mimeType} image not stored]` }
          : p,
      ),
    });
  }
  return message;
}

/**
 * A stored transcript as a run takes it up: a tool call whose arguments nest deeper than
 * `MAX_DATA_DEPTH` (written before that bound, or by another store's host) gets its arguments
 * as their JSON text, as a model turn keeps such arguments today, so that nothing measuring,
 * copying or sending the transcript walks them. Other messages are kept as they are, and so
 * is `messages` itself when none needs this.
 */
export function fromStored(messages: readonly ModelMessage[]): readonly ModelMessage[] {
  if (!messages.some(holdsTooDeep)) return messages;
  return messages.map((message) =>
    message.role === 'assistant' && holdsTooDeep(message)
      ? { ...message, content: message.content.map(asText) }
      : message,
  );
}

function holdsTooDeep(message: ModelMessage): boolean {
  return message.role === 'assistant' && message.content.some(tooDeep);
}

function tooDeep(part: AssistantContentPart): boolean {
  return part.type === 'tool-call' && dataDepth(part.arguments) > MAX_DATA_DEPTH;
}

function asText(part: AssistantContentPart): AssistantContentPart {
  return tooDeep(part) && part.type === 'tool-call'
    ? { ...part, arguments: jsonText(part.arguments) ?? '{}' }
    : part;
}
