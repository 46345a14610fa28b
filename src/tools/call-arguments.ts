import { utf8Bytes } from '../util/index.js';
import { describeFailure, pass, refuse } from './call-stage.js';
import type { StageResult } from './call-stage.js';
import { formatIssues, validateJsonSchema } from './json-schema-validator.js';
import type { CatalogEntry } from './tool-catalog.js';
import type { ValidationOutcome } from './tool-types.js';

/** Arguments that passed validation: a JSON object, as the schema's transforms left it. */
export type CallArguments = Record<string, unknown>;

/**
 * Parses the model's argument text (at most `maxBytes` UTF-8 bytes; blank text is `{}`).
 * Refuses with `TOOL_ARGUMENTS_INVALID`.
 */
export function parseArguments(text: string, maxBytes: number): StageResult<unknown> {
  const size = utf8Bytes(text);
  if (size > maxBytes) {
    return refuse(
      'TOOL_ARGUMENTS_INVALID',
      `The arguments are ${size} bytes, over the limit of ${maxBytes}. Send smaller arguments.`,
    );
  }
  if (text.trim() === '') return pass({});
  try {
    return pass(JSON.parse(text));
  } catch {
    return refuse(
      'TOOL_ARGUMENTS_INVALID',
      'The arguments are not valid JSON. Send one JSON object.',
    );
  }
}

/**
 * Validates parsed arguments against the tool's input schema (its executor's own validator
 * when it has one). Refuses with `TOOL_ARGUMENTS_INVALID`, or `TOOL_EXECUTION_FAILED` when the
 * schema cannot be used; rejects only when `signal` was aborted.
 */
export async function checkArguments(
  entry: CatalogEntry,
  value: unknown,
  signal: AbortSignal,
): Promise<StageResult<CallArguments>> {
  if (!isJsonObject(value)) {
    return refuse('TOOL_ARGUMENTS_INVALID', 'The arguments must be a JSON object.');
  }
  let outcome: ValidationOutcome;
  try {
    outcome = entry.executor.validateInput
      ? await entry.executor.validateInput(entry.name, value)
      : await validateJsonSchema(entry.inputSchema, value);
  } catch (err) {
    if (signal.aborted) throw err;
    return refuse(
      'TOOL_EXECUTION_FAILED',
      `The input schema of '${entry.name}' could not be used: ${describeFailure(err)}.`,
    );
  }
  if (!outcome.success) {
    return refuse(
      'TOOL_ARGUMENTS_INVALID',
      `Invalid arguments for '${entry.name}': ${formatIssues(outcome.issues)}. Fix them and call again.`,
    );
  }
  const out = outcome.value;
  if (!isJsonObject(out)) {
    return refuse('TOOL_ARGUMENTS_INVALID', 'The arguments must be a JSON object.');
  }
  return pass(out);
}

/** Parses and validates argument text: {@link parseArguments}, then {@link checkArguments}. */
export function readArguments(
  entry: CatalogEntry,
  text: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<StageResult<CallArguments>> | StageResult<CallArguments> {
  const parsed = parseArguments(text, maxBytes);
  return parsed.ok ? checkArguments(entry, parsed.value, signal) : parsed;
}

function isJsonObject(value: unknown): value is CallArguments {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
