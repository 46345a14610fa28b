import {
  copyData,
  isDeepFrozen,
  isPromiseLike,
  jsonTextDepth,
  MAX_DATA_DEPTH,
  utf8Bytes,
} from '../util/index.js';
import { describeFailure, pass, refuse } from './call-stage.js';
import type { StageResult } from './call-stage.js';
import {
  formatIssues,
  patternEngineOf,
  validateJsonSchema,
  validateJsonSchemaNow,
} from './json-schema-validator.js';
import type { CatalogEntry } from './tool-catalog.js';
import type { ValidationOutcome } from './tool-types.js';

/** Arguments that passed validation: a JSON object, as the schema's transforms left it. */
export type CallArguments = Record<string, unknown>;

/** The limits a call's argument text is held to (the run's `limits`). */
export interface ArgumentLimits {
  /** UTF-8 bytes (`limits.maxToolArgumentBytes`). */
  readonly maxBytes: number;
  /** Levels of nesting, the arguments object being level 1 (`limits.maxToolArgumentDepth`). */
  readonly maxDepth: number;
}

/**
 * Parses the model's argument text (at most `maxBytes` UTF-8 bytes and `maxDepth` levels of
 * nesting; blank text is `{}`). `parsed`, a deep-frozen JSON object the caller already parsed
 * from `text`, is used instead of parsing again (the limits still apply). Refuses with
 * `TOOL_ARGUMENTS_INVALID`. The depth is read from the text before anything parses or walks
 * it, so arguments of any depth are refused without a deep walk.
 */
export function parseArguments(
  text: string,
  limits: ArgumentLimits,
  parsed?: unknown,
): StageResult<unknown> {
  const size = utf8Bytes(text);
  if (size > limits.maxBytes) {
    return refuse(
      'TOOL_ARGUMENTS_INVALID',
      `The arguments are ${size} bytes, over the limit of ${limits.maxBytes}. Send smaller arguments.`,
    );
  }
  const maxDepth = Math.min(limits.maxDepth, MAX_DATA_DEPTH);
  if (jsonTextDepth(text, maxDepth) > maxDepth) {
    return refuse(
      'TOOL_ARGUMENTS_INVALID',
      `The arguments nest deeper than the limit of ${maxDepth} levels of objects and arrays. Send flatter arguments.`,
    );
  }
  if (typeof parsed === 'object' && parsed !== null && isDeepFrozen(parsed)) return pass(parsed);
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
 * when it has one; a server's patterns under RE2). Refuses with `TOOL_ARGUMENTS_INVALID`, or
 * `TOOL_EXECUTION_FAILED` when the schema cannot be used (an invalid pattern, or one RE2
 * cannot run); fails (throws, or rejects) only when `signal` was aborted. A schema compiled by
 * an earlier call, or a validator that answers at once, gives the result at once, not through a
 * promise.
 */
export function checkArguments(
  entry: CatalogEntry,
  value: unknown,
  signal: AbortSignal,
): StageResult<CallArguments> | Promise<StageResult<CallArguments>> {
  if (!isJsonObject(value)) {
    return refuse('TOOL_ARGUMENTS_INVALID', 'The arguments must be a JSON object.');
  }
  let outcome: ValidationOutcome | PromiseLike<ValidationOutcome>;
  try {
    if (entry.executor.validateInput) {
      // a host validator may fill in defaults in place: it gets its own copy of the frozen parse
      outcome = entry.executor.validateInput(entry.name, ownArguments(value as CallArguments));
    } else {
      // a schema compiled by an earlier call checks this one at once, without an `await`
      const patterns = patternEngineOf(entry.info);
      outcome =
        validateJsonSchemaNow(entry.inputSchema, value, patterns) ??
        validateJsonSchema(entry.inputSchema, value, patterns);
    }
  } catch (err) {
    return unusableSchema(entry, signal, err);
  }
  if (!isPromiseLike(outcome)) return checkedOutcome(entry, outcome);
  return Promise.resolve(outcome).then(
    (o) => checkedOutcome(entry, o),
    (err: unknown) => unusableSchema(entry, signal, err),
  );
}

/** A validator's outcome as the stage's result. */
function checkedOutcome(
  entry: CatalogEntry,
  outcome: ValidationOutcome,
): StageResult<CallArguments> {
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

/** A validator that failed: the abort itself when `signal` was aborted, else a refusal. */
function unusableSchema(
  entry: CatalogEntry,
  signal: AbortSignal,
  err: unknown,
): StageResult<CallArguments> {
  if (signal.aborted) throw err;
  return refuse(
    'TOOL_EXECUTION_FAILED',
    `The input schema of '${entry.name}' could not be used: ${describeFailure(err)}.`,
  );
}

/**
 * Parses (unless `parsed` is given, see {@link parseArguments}) and validates argument text:
 * {@link parseArguments}, then {@link checkArguments}.
 */
export function readArguments(
  entry: CatalogEntry,
  text: string,
  limits: ArgumentLimits,
  signal: AbortSignal,
  parsed?: unknown,
): Promise<StageResult<CallArguments>> | StageResult<CallArguments> {
  const read = parseArguments(text, limits, parsed);
  return read.ok ? checkArguments(entry, read.value, signal) : read;
}

/**
 * The arguments as an executor or hook may hold them: `args` itself when nothing in it is
 * frozen (a validator's fresh output), else a copy of its frozen parts (the transcript's
 * parsed value is frozen and shared, and must not change). Values are JSON.
 */
export function ownArguments(args: CallArguments): CallArguments {
  return thawed(args, 0) as CallArguments;
}

function thawed(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  // past the depth arguments may have, the rest is copied whole (copyData does not recurse)
  if (Object.isFrozen(value) || depth >= MAX_DATA_DEPTH) return copyData(value);
  let copy: Record<string, unknown> | unknown[] | undefined;
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const child = source[key];
    const own = thawed(child, depth + 1);
    if (own === child) continue;
    copy ??= Array.isArray(value) ? [...value] : { ...source };
    (copy as Record<string, unknown>)[key] = own;
  }
  return copy ?? value;
}

function isJsonObject(value: unknown): value is CallArguments {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
