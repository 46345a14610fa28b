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
import { backoffDelay, sleepUnlessAborted } from '../util/index.js';
import { modelBackoff } from './model-retry.js';

/** A tool call as the model produced it, with its raw argument text. */
export interface RequestedCall {
  readonly callId: string;
  readonly name: string;
  readonly argumentsText: string;
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

/**
 * Streams one model turn into an assistant message. Text deltas go to `onDelta` as they come.
 * An abort stops waiting at once (even on a model that ignores its signal); whatever text was
 * already produced is kept, marked incomplete. With `retry`, an attempt that failed with a
 * retryable `ModelError` before the model sent any part is tried again after a backoff; one
 * that sent a part never is. A `ModelError` returned after more than one attempt records the
 * number of attempts in `details.attempts`.
 *
 * @throws MusterError `INVALID_CONFIGURATION` when `retry` is refused (`maxAttempts` over 10).
 */
export async function takeModelTurn(
  model: ModelClient,
  request: ModelRequest,
  signal: AbortSignal,
  onDelta: (kind: 'text' | 'reasoning', text: string) => void,
  retry?: ModelRetryOptions,
): Promise<ModelTurn> {
  const backoff = retry && modelBackoff(retry);
  const maxAttempts = retry?.maxAttempts ?? 1;
  for (let attempt = 1; ; attempt++) {
    const turn = await attemptModelTurn(model, request, signal, onDelta);
    const error = turn.error;
    const retryable =
      error !== undefined &&
      !turn.started &&
      ModelError.isInstance(error) &&
      error.isRetryable &&
      attempt < maxAttempts;
    if (!retryable || !backoff) return withAttempts(withoutStarted(turn), attempt);
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
  let started = false;
  const parts: AssistantContentPart[] = [];
  const calls: RequestedCall[] = [];
  let text = '';
  let pendingText = '';
  let stopReason: StopReason = 'other';
  let usage: Usage | undefined;
  let metadata: ProviderMetadata | undefined;
  let finished = false;
  const flushText = () => {
    if (pendingText) parts.push({ type: 'text', text: pendingText });
    pendingText = '';
  };
  let iterator: AsyncIterator<ModelPart> | undefined;
  // One abort listener for the whole turn (not one per part): it rejects whichever `next()`
  // is pending, so a model that ignores its signal cannot hang the run.
  let rejectPending: ((err: unknown) => void) | undefined;
  const onAbort = () => rejectPending?.(abortedError('The model stream', signal.reason));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    if (signal.aborted) throw abortedError('The model stream', signal.reason);
    const it = model.generate(request, { signal })[Symbol.asyncIterator]();
    iterator = it;
    for (;;) {
      const step = await new Promise<IteratorResult<ModelPart>>((resolve, reject) => {
        if (signal.aborted) {
          reject(abortedError('The model stream', signal.reason));
          return;
        }
        rejectPending = reject;
        it.next().then(resolve, reject);
      });
      if (step.done) break;
      started = true;
      const part = step.value;
      if (finished) throw invalid('the model sent parts after its finish part');
      switch (part?.type) {
        case 'text-delta':
          text += part.text;
          pendingText += part.text;
          onDelta('text', part.text);
          break;
        case 'reasoning-delta':
          onDelta('reasoning', part.text);
          break;
        case 'reasoning':
          flushText();
          parts.push({
            type: 'reasoning',
            text: part.text,
            ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
          });
          break;
        case 'tool-call': {
          if (
            typeof part.callId !== 'string' ||
            part.callId === '' ||
            typeof part.name !== 'string'
          ) {
            throw invalid('a tool call has no callId or name');
          }
          if (calls.some((c) => c.callId === part.callId))
            throw invalid(`two tool calls share the callId '${part.callId}'`);
          flushText();
          const argumentsText = typeof part.argumentsText === 'string' ? part.argumentsText : '';
          calls.push({ callId: part.callId, name: part.name, argumentsText });
          parts.push({
            type: 'tool-call',
            callId: part.callId,
            name: part.name,
            arguments: parseOrRaw(argumentsText),
            ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
          });
          break;
        }
        case 'finish':
          finished = true;
          stopReason = part.stopReason;
          usage = part.usage;
          metadata = part.providerMetadata;
          break;
        default:
          throw invalid(
            `unknown part type ${JSON.stringify((part as { type?: unknown } | undefined)?.type)}`,
          );
      }
    }
    if (!finished) throw invalid('the model stream ended without a finish part');
    signal.removeEventListener('abort', onAbort);
    flushText();
    const message: AssistantMessage = {
      role: 'assistant',
      content: parts,
      ...(metadata ? { providerMetadata: metadata } : {}),
    };
    return { message, text, calls, stopReason, ...(usage ? { usage } : {}), started };
  } catch (err) {
    iterator?.return?.()?.catch(() => undefined);
    signal.removeEventListener('abort', onAbort);
    const error = signal.aborted
      ? abortedError('The run', signal.reason)
      : MusterError.isInstance(err)
        ? err
        : new ModelError(
            'MODEL_REQUEST_FAILED',
            `The model request failed: ${err instanceof Error ? err.message : String(err)}`,
            { cause: err },
          );
    flushText();
    const partial = parts.filter((p) => p.type !== 'tool-call');
    const message: AssistantMessage | undefined =
      partial.length > 0 ? { role: 'assistant', content: partial, incomplete: true } : undefined;
    return {
      message,
      text,
      calls: [],
      stopReason: 'other',
      ...(usage ? { usage } : {}),
      error,
      started,
    };
  }
}

function invalid(what: string): ModelError {
  return new ModelError('MODEL_RESPONSE_INVALID', `The model's response is invalid: ${what}.`);
}

/** Keeps the parsed object in the transcript; raw text when it is not a JSON object. */
function parseOrRaw(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : text;
  } catch {
    return text;
  }
}
