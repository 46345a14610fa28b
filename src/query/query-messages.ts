import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../agent/index.js';
import type { MusterError } from '../errors/index.js';
import type { Usage } from '../model/index.js';
import { fromPicoUsd, toPicoUsd } from '../model/index.js';
import { jsonTextDepth, MAX_DATA_DEPTH } from '../util/index.js';
import type { Wait } from '../agent/index.js';
import { PartialMessageStream } from './partial-messages.js';
import type {
  QueryContentBlock,
  QueryMessage,
  QueryPermissionDenial,
  QueryResultMessage,
  QueryResultSubtype,
  QueryUsage,
} from './query-types.js';

/** Muster usage in the reference SDKs' field names. */
export function toQueryUsage(u: Usage | undefined): QueryUsage {
  return {
    input_tokens: u?.inputTokens ?? 0,
    output_tokens: u?.outputTokens ?? 0,
    cache_read_input_tokens: u?.cachedInputTokens ?? 0,
    cache_creation_input_tokens: u?.cacheWriteInputTokens ?? 0,
  };
}

function addQueryUsage(a: QueryUsage, b: QueryUsage): QueryUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
  };
}

const ZERO: QueryUsage = toQueryUsage(undefined);

/**
 * Maps one run's agent events to query messages (one mapper per user turn): `model.completed`
 * -> `assistant` (text and `tool_use` blocks), `tool.completed` -> `user` (a `tool_result`),
 * `elicitation.completed` via the server's notification -> `system`/`elicitation_complete`,
 * `session.completed` / `session.failed` -> the turn's `result` (with `structured_output`
 * when the run asked for `output`), `session.parked` -> a `parked` result (`is_error: false`,
 * `stop_reason: 'tool_deferred'`, `deferred_tool_use`, `waits`). Every other event maps to
 * nothing. Denied calls are gathered into the result's `permission_denials`.
 */
export class RunMessageMapper {
  readonly #sessionId: string;
  #runId: string | undefined;
  readonly #started = Date.now();
  #modelName: string;
  #turns = 0;
  #apiMs = 0;
  #turnStart = Date.now();
  #usage: QueryUsage = ZERO;
  /** Picodollars of the run's own turns so far. */
  #costPico = 0;
  /** Dollars the run's budget counted (delegated runs and sampling included), when it said. */
  #budgetSpent: number | undefined;
  readonly #inputs = new Map<string, Readonly<Record<string, unknown>>>();
  readonly #denials: QueryPermissionDenial[] = [];
  readonly #partial: PartialMessageStream | undefined;

  constructor(sessionId: string, modelName: string, partial = false) {
    this.#sessionId = sessionId;
    this.#modelName = modelName;
    this.#partial = partial ? new PartialMessageStream(sessionId) : undefined;
  }

  /**
   * The messages one event maps to (most map to none). Events of other runs (a child agent's
   * sub-run forwarded through `asTool`) map to none: the turn's messages are its own run's.
   */
  map(event: AgentEvent): QueryMessage[] {
    if (this.#runId === undefined && event.type === 'session.started') this.#runId = event.runId;
    else if (this.#runId !== undefined && event.runId !== this.#runId) return [];
    switch (event.type) {
      case 'session.started':
        this.#modelName = event.modelName;
        this.#turnStart = Date.now();
        return [];
      case 'model.delta':
        return this.#partial ? this.#partial.delta(event, this.#modelName) : [];
      case 'model.completed':
        return this.#assistant(event);
      case 'budget.warning':
      case 'budget.exhausted':
        if (event.limit === 'maxCostUsd') this.#budgetSpent = event.spent;
        return [];
      case 'tool.decision':
        if (event.decision === 'deny')
          this.#denials.push({
            tool_name: event.toolName,
            tool_use_id: event.callId,
            tool_input: this.#inputs.get(event.callId) ?? {},
          });
        return [];
      case 'tool.completed':
        this.#turnStart = Date.now();
        return [this.#toolResult(event.callId, event.content, event.isError)];
      case 'elicitation.completed':
        if (event.via !== 'notification') return [];
        return [
          {
            type: 'system',
            subtype: 'elicitation_complete',
            session_id: this.#sessionId,
            uuid: randomUUID(),
            mcp_server_name: event.server,
            ...(event.elicitationId !== undefined ? { elicitation_id: event.elicitationId } : {}),
          },
        ];
      case 'session.completed':
        return [
          this.#result('success', {
            content: event.content,
            usage: event.usage,
            ...(event.output !== undefined ? { output: event.output } : {}),
          }),
        ];
      case 'session.failed':
        return [this.failure(event.error)];
      case 'session.parked':
        return [this.#result('parked', { waits: event.waits })];
      default:
        return [];
    }
  }

  /** The error `result` of a run that failed with `error`, its subtype decided by the code. */
  failure(error: MusterError): QueryResultMessage {
    return this.#result(errorSubtype(error), { error });
  }

  /** The turn's `assistant` message, after the events that end its stream (when partial). */
  #assistant(event: Extract<AgentEvent, { type: 'model.completed' }>): QueryMessage[] {
    this.#turns++;
    this.#apiMs += Date.now() - this.#turnStart;
    const usage = toQueryUsage(event.usage);
    this.#usage = addQueryUsage(this.#usage, usage);
    this.#costPico += toPicoUsd(event.usage?.costUsd ?? 0);
    const streamed = this.#partial?.complete(event, this.#modelName, usage);
    const content: QueryContentBlock[] = [];
    if (event.text !== '') content.push({ type: 'text', text: event.text });
    for (const call of event.toolCalls) {
      const input = parseArguments(call.arguments);
      this.#inputs.set(call.callId, input);
      content.push({ type: 'tool_use', id: call.callId, name: call.name, input });
    }
    return [
      ...(streamed?.messages ?? []),
      {
        type: 'assistant',
        session_id: this.#sessionId,
        uuid: randomUUID(),
        parent_tool_use_id: null,
        message: {
          id: streamed?.messageId ?? `msg_${event.runId}_${event.iteration}`,
          type: 'message',
          role: 'assistant',
          model: this.#modelName,
          content,
          stop_reason: event.stopReason,
          usage,
        },
      },
    ];
  }

  /** What the run cost so far: its own turns, or what its budget counted when that is more. */
  #cost(): number {
    const own = fromPicoUsd(this.#costPico);
    return this.#budgetSpent !== undefined && this.#budgetSpent > own ? this.#budgetSpent : own;
  }

  #toolResult(callId: string, content: string, isError: boolean): QueryMessage {
    return {
      type: 'user',
      session_id: this.#sessionId,
      uuid: randomUUID(),
      parent_tool_use_id: null,
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: callId, content, is_error: isError }],
      },
    };
  }

  #result(
    subtype: QueryResultMessage['subtype'],
    end: {
      content?: string;
      output?: unknown;
      usage?: Usage;
      error?: MusterError;
      waits?: readonly Wait[];
    },
  ): QueryResultMessage {
    const deferred = end.waits?.find((w) => w.callId !== undefined && w.toolName !== undefined);
    return {
      type: 'result',
      subtype,
      session_id: this.#sessionId,
      uuid: randomUUID(),
      is_error: subtype !== 'success' && subtype !== 'parked',
      duration_ms: Date.now() - this.#started,
      duration_api_ms: this.#apiMs,
      num_turns: this.#turns,
      ...(end.content !== undefined ? { result: end.content } : {}),
      ...(end.output !== undefined ? { structured_output: end.output } : {}),
      usage: end.usage ? toQueryUsage(end.usage) : this.#usage,
      total_cost_usd: end.usage?.costUsd ?? this.#cost(),
      permission_denials: [...this.#denials],
      ...(end.error ? { errors: [end.error.message], error_code: end.error.code } : {}),
      ...(end.waits
        ? {
            stop_reason: 'tool_deferred' as const,
            ...(deferred
              ? {
                  deferred_tool_use: {
                    id: deferred.callId!,
                    name: deferred.toolName!,
                    input: deferred.arguments ?? {},
                  },
                }
              : {}),
            waits: end.waits,
          }
        : {}),
    };
  }
}

/**
 * The reference SDKs' error subtype of a failure, from its code: the iteration limit is
 * `error_max_turns`, a typed answer still invalid after its repair turns is
 * `error_max_structured_output_retries`, a spent dollar budget `error_max_budget_usd`,
 * anything else `error_during_execution`.
 */
function errorSubtype(error: MusterError): Exclude<QueryResultSubtype, 'success' | 'parked'> {
  if (error.code === 'AGENT_LIMIT_EXCEEDED' && error.details.limit === 'maxIterations')
    return 'error_max_turns';
  if (error.code === 'OUTPUT_INVALID') return 'error_max_structured_output_retries';
  if (error.code === 'BUDGET_EXHAUSTED' && error.details.limit === 'maxCostUsd')
    return 'error_max_budget_usd';
  return 'error_during_execution';
}

/** The input of a tool_use block: the call's arguments object, `{}` when it has none. */
function parseArguments(args: unknown): Readonly<Record<string, unknown>> {
  if (typeof args === 'string') {
    // arguments kept as text for their depth are not parsed into something as deep
    if (jsonTextDepth(args) > MAX_DATA_DEPTH) return {};
    try {
      const parsed: unknown = JSON.parse(args);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    } catch {
      return {};
    }
  }
  return args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
}
