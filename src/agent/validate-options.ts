import { MusterError } from '../errors/index.js';
import type { ContextOptions } from '../context/index.js';
import type {
  AgentOptions,
  Hooks,
  ModelRetryOptions,
  Observability,
  RunRequest,
} from './agent-options.js';
import type { McpContextOptions } from './mcp-context.js';
import type { WaitOptions } from './run-waits.js';
import { validatePricing } from './pricing.js';
import {
  arrayOf,
  assertValid,
  checkedElsewhere,
  hasMethods,
  isBoolean,
  isFunction,
  isObject,
  isPrincipalId,
  isString,
  oneOf,
  oneOrMany,
  optional,
  shape,
} from '../util/index.js';
import type { Check } from '../util/index.js';

/** A check for each key of `T`, and for no other key. */
type Fields<T> = { readonly [K in keyof Required<T>]: Check };

// Hand-written checks rather than a schema library: importing Muster must stay cheap, and
// these shapes are small. Every problem names its path; unknown keys are refused.

const modelClient: Check = (v) =>
  typeof v === 'object' &&
  v !== null &&
  (v as { specificationVersion?: unknown }).specificationVersion === 'muster-model-v1' &&
  typeof (v as { generate?: unknown }).generate === 'function'
    ? undefined
    : "must be a ModelClient (specificationVersion 'muster-model-v1' with generate())";

const positiveInteger: Check = (v) =>
  Number.isSafeInteger(v) && (v as number) > 0 ? undefined : 'must be a positive whole number';

const name = isString(/^.{1,200}$/s, '1-200 characters');

const nonNegativeInteger: Check = (v) =>
  Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : 'must be a whole number >= 0';

const attempts: Check = (v) =>
  Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= 10
    ? undefined
    : 'must be a whole number from 1 to 10';

const modelRetry = shape({
  maxAttempts: attempts,
  initialDelayMs: optional(nonNegativeInteger),
  maxDelayMs: optional(nonNegativeInteger),
} satisfies Fields<ModelRetryOptions>);

const promptCacheKey = isString(/^.{1,200}$/s, '1-200 characters');

const nonEmpty = isString(/^.+$/s, 'a non-empty string');

const stringRecord: Check = (v) => {
  const problem = isObject(v);
  if (problem) return problem;
  for (const [key, value] of Object.entries(v as object))
    if (typeof value !== 'string') return `${key}: must be a string`;
  return undefined;
};

const mcpContext = shape({
  maxBytes: positiveInteger,
  resources: optional(arrayOf(shape({ server: nonEmpty, uri: nonEmpty }))),
  prompts: optional(
    arrayOf(shape({ server: nonEmpty, name: nonEmpty, arguments: optional(stringRecord) })),
  ),
} satisfies Fields<McpContextOptions>);

const agentOptions = shape({
  model: optional(modelClient),
  modelName: optional(name),
  system: optional(isString()),
  workdir: optional(isString(/^.+$/s, 'a non-empty path')),
  tools: optional(arrayOf(isObject)),
  toolExecutor: optional(
    hasMethods(['listTools', 'execute'], 'a ToolExecutor with listTools() and execute()'),
  ),
  mcpServers: optional(isObject),
  mcp: optional(isObject),
  policy: optional(isObject),
  hooks: optional(
    shape({
      beforeTool: optional(oneOrMany(isFunction)),
      afterTool: optional(oneOrMany(isFunction)),
      onElicitation: optional(isFunction),
      onElicitationResult: optional(isFunction),
    } satisfies Fields<Hooks>),
  ),
  sessionStore: optional(
    hasMethods(
      ['create', 'get', 'update', 'delete'],
      'a SessionStore with create, get, update and delete',
    ),
  ),
  sessionLeaseMs: optional(positiveInteger),
  limits: optional(isObject),
  // its entries are checked where it is read (validatePricing), with messages of their own
  pricing: optional(isObject),
  context: optional(
    shape({
      archiveStore: optional(hasMethods(['put', 'get'], 'an ArchiveStore with put() and get()')),
      maxArchiveBytesPerSession: optional(positiveInteger),
      maxTokens: optional(positiveInteger),
      maxMessages: optional(positiveInteger),
      maxBytes: optional(positiveInteger),
      strategy: optional(oneOf(['truncate', 'summarize'])),
      tokenizer: optional(isFunction),
      summarize: optional(isFunction),
    } satisfies Fields<ContextOptions>),
  ),
  observability: optional(
    shape({
      onEvent: optional(isFunction),
      onError: optional(isFunction),
      tracer: optional(hasMethods(['startSpan'], 'an OpenTelemetry Tracer (with startSpan)')),
      tracing: optional(isBoolean),
      traceContent: optional(isBoolean),
      agentName: optional(name),
    } satisfies Fields<Observability>),
  ),
  modelRetry: optional(modelRetry),
  promptCacheKey: optional(promptCacheKey),
  mcpContext: optional(mcpContext),
  outputRepairs: optional(nonNegativeInteger),
  eventLog: optional(oneOf(['default', 'all'])),
  waits: optional(
    shape({
      ttlMs: optional(positiveInteger),
      onExpiry: optional(oneOf(['deny', 'cancel'])),
    } satisfies Fields<WaitOptions>),
  ),
} satisfies Fields<AgentOptions>);

const imagePart = shape({
  type: oneOf(['image']),
  data: optional(isString(/^[A-Za-z0-9+/]+=*$/, 'base64 without a data: prefix')),
  url: optional(isString(/^(https:|data:)/, 'an https: or data: URL')),
  mimeType: isString(/^image\/[A-Za-z0-9.+-]+$/, 'an image/* type'),
});
const textPart = shape({ type: oneOf(['text']), text: isString() });
const contentPart: Check = (v) =>
  (v as { type?: unknown } | null)?.type === 'image' ? imagePart(v) : textPart(v);

const sessionId = isString(
  /^[A-Za-z0-9._:-]{1,200}$/,
  "1-200 of letters, digits, '.', '_', ':' or '-'",
);

/** The fields of a run request; `send()` and `resume()` take fewer of them. */
const runFields = {
  input: optional(isString()),
  inputContent: optional(arrayOf(contentPart, 1)),
  sessionId: optional(sessionId),
  principal: optional(isPrincipalId),
  modelName: optional(name),
  system: optional(isString()),
  stream: optional(isBoolean),
  signal: optional((v) => (v instanceof AbortSignal ? undefined : 'must be an AbortSignal')),
  // its keys and values are checked where it is resolved (resolveLimits)
  limits: optional(isObject),
  reasoningEffort: optional(oneOf(['none', 'minimal', 'low', 'medium', 'high', 'xhigh'])),
  modelRetry: optional(modelRetry),
  promptCacheKey: optional(promptCacheKey),
  mcpContext: optional(mcpContext),
  traceContext: optional(
    hasMethods(['getValue', 'setValue'], 'an OpenTelemetry Context (from context.active())'),
  ),
  // its shape is checked where it is resolved (resolveOutput), with messages of its own
  output: optional(checkedElsewhere),
  outputRepairs: optional(nonNegativeInteger),
} satisfies Fields<RunRequest>;

const runRequest = shape(runFields);

/** `send(text, options)`: the text is the input. */
const { input: _input, inputContent: _content, ...sendFields } = runFields;
const sendOptions = shape(sendFields);

/** `resume(sessionId, options)`: the session is named, and a resumed run takes no new input. */
const { sessionId: _session, ...resumeFields } = sendFields;
const resumeOptions = shape(resumeFields);

/** Checks agent options; unknown keys and wrong types fail with `INVALID_CONFIGURATION`. */
export function validateAgentOptions(options: unknown): AgentOptions {
  assertValid(options ?? {}, agentOptions, 'agent options');
  const pricing = (options as AgentOptions | undefined)?.pricing;
  if (pricing !== undefined) validatePricing(pricing);
  return (options ?? {}) as AgentOptions;
}

/**
 * Checks `send()` options (a run request without `input` and `inputContent`: the text is the
 * input); unknown keys and wrong types fail with `INVALID_CONFIGURATION`.
 */
export function validateSendOptions(options: unknown): void {
  assertValid(options, sendOptions, 'send options');
}

/**
 * Checks a run request; unknown keys and wrong types fail with `INVALID_CONFIGURATION`. For
 * a resume of `resumed.sessionId`, `request` is the options of `resume()`: a run request
 * without `input`, `inputContent` and `sessionId`; the request returned for them names the
 * session and has an empty `input`.
 */
export function validateRunRequest(
  request: unknown,
  resumed?: { readonly sessionId: unknown },
): RunRequest {
  if (resumed) {
    assertValid(resumed.sessionId, sessionId, 'session id to resume');
    assertValid(request ?? {}, resumeOptions, 'resume options');
    return { ...(request as RunRequest), sessionId: resumed.sessionId as string, input: '' };
  }
  assertValid(request, runRequest, 'run request');
  const r = request as RunRequest;
  for (const part of r.inputContent ?? []) {
    if (part.type === 'image' && (part.data === undefined) === (part.url === undefined)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'Invalid run request: an image part needs exactly one of data or url.',
      );
    }
  }
  if (r.input === undefined && r.inputContent === undefined) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'Invalid run request: give input (text) or inputContent.',
    );
  }
  return r;
}
