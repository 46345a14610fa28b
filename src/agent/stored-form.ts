import type { ModelMessage } from '../model/index.js';
import { deepFreeze } from '../util/index.js';

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
