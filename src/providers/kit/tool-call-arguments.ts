import type { ToolCallPart } from '../../model/index.js';
import { jsonTextDepth, MAX_DATA_DEPTH } from '../../util/index.js';

/** The JSON text of a transcript tool call's arguments, as providers send it back. */
export function toolCallArgumentsText(part: ToolCallPart): string {
  return typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments ?? {});
}

/**
 * The input object of a transcript tool call, as APIs that take an object want it: the parsed
 * arguments themselves when they are an object (no copy, no re-parsing on every request),
 * the parsed text when it holds a JSON object, and `{}` otherwise (the model sent arguments
 * that were not an object, or nested deeper than `MAX_DATA_DEPTH`, and the call was refused).
 */
export function toolCallInput(part: ToolCallPart): Record<string, unknown> {
  const args = part.arguments;
  if (isPlainObject(args)) return args;
  if (typeof args !== 'string' || jsonTextDepth(args) > MAX_DATA_DEPTH) return {};
  try {
    const value: unknown = JSON.parse(args);
    return isPlainObject(value) ? value : {};
  } catch {
    return {};
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
