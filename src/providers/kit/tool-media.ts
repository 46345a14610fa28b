import type {
  AssistantMessage,
  ImagePart,
  ModelMessage,
  ToolResultMessage,
} from '../../model/index.js';

/** The text that introduces images a tool returned, sent in a user message after the results. */
export function toolMediaCaption(toolName: string, callId: string): string {
  return `Images returned by tool ${toolName} (call ${callId}):`;
}

/**
 * How one provider writes the neutral transcript: one function per message kind and per
 * user content part. `image` returns `undefined` for an image the provider cannot send.
 */
export interface TranscriptWriter<Item, Content> {
  readonly text: (text: string) => Content;
  readonly image: (image: ImagePart) => Content | undefined;
  readonly system: (content: string) => Item;
  /** A user message; also carries the images tools returned. */
  readonly user: (content: Content[]) => Item;
  readonly assistant: (message: AssistantMessage) => Item[];
  readonly toolResult: (message: ToolResultMessage) => Item;
}

/**
 * Writes the transcript with one provider's writer. Tool results cannot carry images on most
 * APIs, so the images of a run of tool results follow that run in one user message, each
 * tool's images after a caption naming the tool and call.
 */
export function writeTranscript<Item, Content>(
  messages: readonly ModelMessage[],
  writer: TranscriptWriter<Item, Content>,
): Item[] {
  const out: Item[] = [];
  let pendingMedia: Content[] = [];
  const flushMedia = (): void => {
    if (pendingMedia.length > 0) out.push(writer.user(pendingMedia));
    pendingMedia = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushMedia();
    switch (message.role) {
      case 'system':
        out.push(writer.system(message.content));
        break;
      case 'user':
        out.push(
          writer.user(
            message.content.flatMap((part) =>
              part.type === 'text' ? [writer.text(part.text)] : images([part], writer),
            ),
          ),
        );
        break;
      case 'assistant':
        out.push(...writer.assistant(message));
        break;
      case 'tool':
        out.push(writer.toolResult(message));
        pendingMedia.push(...toolMedia(message, writer));
        break;
    }
  }
  flushMedia();
  return out;
}

function toolMedia<Content>(
  message: ToolResultMessage,
  writer: TranscriptWriter<unknown, Content>,
): Content[] {
  const parts = images(message.media ?? [], writer);
  if (parts.length === 0) return [];
  return [writer.text(toolMediaCaption(message.toolName, message.callId)), ...parts];
}

function images<Content>(
  media: readonly ImagePart[],
  writer: TranscriptWriter<unknown, Content>,
): Content[] {
  return media.flatMap((image) => {
    const part = writer.image(image);
    return part === undefined ? [] : [part];
  });
}
