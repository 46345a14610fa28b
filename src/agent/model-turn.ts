import { ModelError, MusterError, abortedError } from '../errors/index.js';
import type {
  AssistantContentPart,
  AssistantMessage,
  ModelClient,
  ModelPart,
  ModelRequest,
  ProviderMetadata,
  StopReason,
  Usage,
} from '../model/index.js';
import type { ModelRetryOptions } from './agent-options.js';
import {
  backoffDelay,
  copyData,
  deepFreeze,
  jsonTextDepth,
  MAX_DATA_DEPTH,
  raceAbort,
  sleepUnlessAborted,
} from '../util/index.js';
import { modelBackoff } from './model-retry.js';

/** A tool call as the model produced it, with its raw argument text. */
export interface RequestedCall {
  readonly callId: string;
  readonly name: string;
  readonly argumentsText: string;
  /**
   * `argumentsText` parsed (deep-frozen, shared with the transcript), or the raw text when it
   * is not a JSON object or nests deeper than `MAX_DATA_DEPTH`.
   */
  readonly arguments: unknown;
}

/** The outcome of one model turn. On failure, `message` holds what was produced before it. */
export interface ModelTurn {
  readonly message: AssistantMessage | undefined;
  readonly text: string;
  readonly calls: readonly RequestedCall[];
  readonly stopReason: StopReason;
  readonly usage?: Usage;
  readonly error?: MusterError;
}

/** Follows the attempts of a turn (the traces: one span per attempt). */
export interface TurnAttempts {
  /** Attempt `attempt` failed with `error` and will be tried again after a wait. */
  failed(attempt: number, error: MusterError): void;
  /** Runs attempt `attempt` (2 and on: a retry, after its wait). */
  retry<T>(attempt: number, run: () => Promise<T>): Promise<T>;
}

/**
 * Streams one model turn into an assistant message. Text deltas go to `onDelta` as they come.
 * An abort stops waiting at once (even on a model that ignores its signal); whatever text was
 * already produced is kept, marked incomplete. With `retry`, an attempt that failed with a
 * retryable `ModelError` before the model sent any part is tried again after a backoff; one
 * that sent a part never is. A `ModelError` returned after more than one attempt records the
 * number of attempts in `details.attempts`. `attempts` hears of each retry.
 *
 * @throws MusterError `INVALID_CONFIGURATION` when `retry` is refused (`maxAttempts` over 10).
 */
export async function takeModelTurn(
  model: ModelClient,
  request: ModelRequest,
  signal: AbortSignal,
  onDelta: (kind: 'text' | 'reasoning', text: string) => void,
  retry?: ModelRetryOptions,
  attempts?: TurnAttempts,
): Promise<ModelTurn> {
  const backoff = retry && modelBackoff(retry);
  const maxAttempts = retry?.maxAttempts ?? 1;
  for (let attempt = 1; ; attempt++) {
    const turn = await (attempt > 1 && attempts
      ? attempts.retry(attempt, () => attemptModelTurn(model, request, signal, onDelta))
      : attemptModelTurn(model, request, signal, onDelta));
    const error = turn.error;
    const retryable =
      error !== undefined &&
      !turn.started &&
      ModelError.isInstance(error) &&
      error.isRetryable &&
      attempt < maxAttempts;
    if (!retryable || !backoff) return withAttempts(withoutStarted(turn), attempt);
    attempts?.failed(attempt, error);
    if (!(await sleepUnlessAborted(backoffDelay(backoff, attempt), signal))) {
      return { ...withoutStarted(turn), error: abortedError('The run', signal.reason) };
    }
  }
}

/** A model error after retries records how many attempts were made (`details.attempts`). */
function withAttempts(turn: ModelTurn, attempts: number): ModelTurn {
  const error = turn.error;
  if (attempts < 2 || !ModelError.isInstance(error)) return turn;
  const again = new ModelError(error.code, error.message, {
    details: { ...error.details, attempts },
    cause: error.cause,
    isRetryable: error.isRetryable,
    ...(error.status !== undefined ? { status: error.status } : {}),
  });
  return { ...turn, error: again };
}

function withoutStarted(turn: ModelTurn & { started: boolean }): ModelTurn {
  const { started: _started, ...rest } = turn;
  return rest;
}

/** One attempt of a turn; `started` tells whether the model sent any part. */
async function attemptModelTurn(
  model: ModelClient,
  request: ModelRequest,
  signal: AbortSignal,
  onDelta: (kind: 'text' | 'reasoning', text: string) => void,
): Promise<ModelTurn & { started: boolean }> {
  const t = new TurnAssembly();
  let iterator: AsyncIterator<ModelPart> | undefined;
  try {
    if (signal.aborted) throw abortedError('The model stream', signal.reason);
    const it = model.generate(request, { signal })[Symbol.asyncIterator]();
    iterator = it;
    // One race for the whole turn (not a promise per part): an abort ends the wait at once,
    // so a model that ignores its signal cannot hang the run.
    await raceAbort(consume(it, t, signal, onDelta), signal, 'The model stream');
    t.flushText();
    const message: AssistantMessage = deepFreeze({
      role: 'assistant',
      content: t.parts,
      ...(t.metadata ? { providerMetadata: copyData(t.metadata) } : {}),
    });
    return {
      message,
      text: t.text,
      calls: t.calls,
      stopReason: t.stopReason,
      ...(t.usage ? { usage: t.usage } : {}),
      started: t.started,
    };
  } catch (err) {
    iterator?.return?.()?.catch(() => undefined);
    const error = signal.aborted
      ? abortedError('The run', signal.reason)
      : MusterError.isInstance(err)
        ? err
        : new ModelError(
            'MODEL_REQUEST_FAILED',
            `The model request failed: ${err instanceof Error ? err.message : String(err)}`,
            { cause: err },
          );
    t.flushText();
    const partial = t.parts.filter((p) => p.type !== 'tool-call');
    const message: AssistantMessage | undefined =
      partial.length > 0
        ? deepFreeze({ role: 'assistant', content: partial, incomplete: true })
        : undefined;
    return {
      message,
      text: t.text,
      calls: [],
      stopReason: 'other',
      ...(t.usage ? { usage: t.usage } : {}),
      error,
      started: t.started,
    };
  }
}

/**
 * Reads the model's parts into `t` until the stream ends. Once `signal` aborts it stops
 * touching `t` (the turn has already ended with what was there), whatever the model still sends.
 */
async function consume(
  it: AsyncIterator<ModelPart>,
  t: TurnAssembly,
  signal: AbortSignal,
  onDelta: (kind: 'text' | 'reasoning', text: string) => void,
): Promise<void> {
  for (;;) {
    const step = await it.next();
    if (signal.aborted) return;
    if (step.done) break;
    t.started = true;
    t.add(step.value, onDelta);
  }
  if (!t.finished) throw invalid('the model stream ended without a finish part');
}

/** The parts of one turn as they come in. */
class TurnAssembly {
  started = false;
  finished = false;
  readonly parts: AssistantContentPart[] = [];
  readonly calls: RequestedCall[] = [];
  text = '';
  pendingText = '';
  stopReason: StopReason = 'other';
  usage: Usage | undefined;
  metadata: ProviderMetadata | undefined;

  flushText(): void {
    if (this.pendingText) this.parts.push({ type: 'text', text: this.pendingText });
    this.pendingText = '';
  }

  add(part: ModelPart, onDelta: (kind: 'text' | 'reasoning', text: string) => void): void {
    if (this.finished) throw invalid('the model sent parts after its finish part');
    switch (part?.type) {
      case 'text-delta':
        this.text += part.text;
        this.pendingText += part.text;
        onDelta('text', part.text);
        break;
      case 'reasoning-delta':
        onDelta('reasoning', part.text);
        break;
      case 'reasoning':
        this.flushText();
        this.parts.push({
          type: 'reasoning',
          text: part.text,
          // the model's own object: copied, since the message is frozen and kept
          ...(part.providerMetadata ? { providerMetadata: copyData(part.providerMetadata) } : {}),
        });
        break;
      case 'tool-call': {
        if (typeof part.callId !== 'string' || part.callId === '' || typeof part.name !== 'string')
          throw invalid('a tool call has no callId or name');
        if (this.calls.some((c) => c.callId === part.callId))
          throw invalid(`two tool calls share the callId '${part.callId}'`);
        this.flushText();
        const argumentsText = typeof part.argumentsText === 'string' ? part.argumentsText : '';
        // parsed once: the transcript and the call pipeline share this (deep-frozen) value
        const args = deepFreeze(parseOrRaw(argumentsText));
        this.calls.push({ callId: part.callId, name: part.name, argumentsText, arguments: args });
        this.parts.push({
          type: 'tool-call',
          callId: part.callId,
          name: part.name,
          arguments: args,
          ...(part.providerMetadata ? { providerMetadata: copyData(part.providerMetadata) } : {}),
        });
        break;
      }
      case 'finish':
        this.finished = true;
        this.stopReason = part.stopReason;
        this.usage = part.usage;
        this.metadata = part.providerMetadata;
        break;
      default:
        throw invalid(
          `unknown part type ${JSON.stringify((part as { type?: unknown } | undefined)?.type)}`,
        );
    }
  }
}

function invalid(what: string): ModelError {
  return new ModelError('MODEL_RESPONSE_INVALID', `The model's response is invalid: ${what}.`);
}

/**
 * Keeps the parsed object in the transcript; raw text when it is not a JSON object, or nests
 * deeper than any walk over the transcript may go (the call is refused for its depth).
 */
function parseOrRaw(text: string): unknown {
  if (text.trim() === '') return {};
  if (jsonTextDepth(text) > MAX_DATA_DEPTH) return text;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : text;
  } catch {
    return text;
  }
}
