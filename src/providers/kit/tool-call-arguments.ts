import type { ToolCallPart } from '../../model/index.js';

/** The JSON text of a transcript tool call's arguments, as providers send it back. */
export function toolCallArgumentsText(part: ToolCallPart): string {
  return typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments ?? {});
}
