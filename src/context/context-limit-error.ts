import { MusterError } from '../errors/index.js';
import type { ContextMetrics } from './context-measure.js';
import type { ContextLimits } from './select-units.js';

/** The first limit `size` is over, with its option name. */
function overLimit(
  size: ContextMetrics,
  limits: ContextLimits,
): { limit: string; value: number; required: number } {
  if (size.tokens > limits.maxTokens)
    return { limit: 'context.maxTokens', value: limits.maxTokens, required: size.tokens };
  if (size.messages > limits.maxMessages)
    return { limit: 'context.maxMessages', value: limits.maxMessages, required: size.messages };
  return { limit: 'context.maxBytes', value: limits.maxBytes ?? 0, required: size.bytes };
}

/**
 * `AGENT_LIMIT_EXCEEDED` for a request whose smallest allowed form (the system prompt and
 * messages, the newest user message, the latest model turn with its results, and under
 * `summarize` the summary) is still over a limit. Raised before anything is sent.
 */
export function contextLimitError(
  minimum: ContextMetrics,
  limits: ContextLimits,
  summaryTokens?: number,
): MusterError {
  const over = overLimit(minimum, limits);
  const what =
    summaryTokens === undefined
      ? 'the system prompt and messages, the newest user message and the latest model turn with its tool results'
      : `the same with the summary from context.summarize (~${summaryTokens} tokens)`;
  const fix =
    summaryTokens === undefined
      ? 'raise the context limits, shorten the input or the system prompt, or have tools return less (limits.maxToolResultBytes)'
      : 'have the summarizer write a shorter summary, or raise the context limits';
  return new MusterError(
    'AGENT_LIMIT_EXCEEDED',
    `The next model request needs at least ${minimum.tokens} tokens, ${minimum.messages} messages and ${minimum.bytes} bytes (${what}), over ${over.limit} (${over.value}); nothing was sent: ${fix}.`,
    {
      details: {
        ...over,
        reason: summaryTokens === undefined ? 'minimum-over-limit' : 'summary-too-long',
      },
    },
  );
}

/** `AGENT_LIMIT_EXCEEDED` for a summarizer that failed, returned no text or too long a text (cause kept). */
export function summarizerError(
  reason: 'summarizer-failed' | 'summary-empty' | 'summary-too-long',
  cause?: unknown,
): MusterError {
  const what =
    reason === 'summarizer-failed'
      ? 'failed (see the cause)'
      : reason === 'summary-empty'
        ? 'returned no text (it must resolve with a non-empty string)'
        : 'keeps writing summaries too long to fit beside the newest messages (ask it for a shorter one)';
  return new MusterError(
    'AGENT_LIMIT_EXCEEDED',
    `The conversation is over the context limits and context.summarize ${what}; nothing was sent: fix the summarizer, or use context.strategy 'truncate'.`,
    { details: { limit: 'context.summarize', reason }, ...(cause !== undefined ? { cause } : {}) },
  );
}
