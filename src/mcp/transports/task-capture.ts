import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { interceptIncoming } from './incoming-messages.js';
import type {
  CapturedTaskAnswer,
  TaskAnswerCapture,
  TaskCallTag,
} from '../contracts/task-types.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The task of a `CreateTaskResult`, or the first thing wrong with it. */
function taskOf(requestId: number | string, result: Record<string, unknown>): CapturedTaskAnswer {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = result;
  const malformed = (problem: string): CapturedTaskAnswer => ({
    kind: 'malformed',
    requestId,
    problem,
  });
  if (typeof taskId !== 'string' || taskId === '') return malformed('no taskId');
  if (typeof status !== 'string') return malformed('no status');
  if (typeof createdAt !== 'string') return malformed('no createdAt');
  if (ttlMs !== null && !(typeof ttlMs === 'number' && ttlMs >= 0))
    return malformed('ttlMs is neither a number nor null');
  if (pollIntervalMs !== undefined && !(typeof pollIntervalMs === 'number' && pollIntervalMs >= 0))
    return malformed('pollIntervalMs is not a number');
  return {
    kind: 'task',
    task: {
      requestId,
      taskId,
      status,
      ...(typeof statusMessage === 'string' ? { statusMessage } : {}),
      createdAt,
      ...(typeof lastUpdatedAt === 'string' ? { lastUpdatedAt } : {}),
      ttlMs,
      ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
    },
  };
}

/**
 * Captures the `CreateTaskResult` a server answers a `tools/call` with (the Tasks extension,
 * SEP-2663) below the official client's decoding: the client (2.4.0) rejects such an answer
 * with `UNSUPPORTED_RESULT_TYPE` and loses the task id, so the capture reads it off the
 * incoming message first, on the same transport, and keeps it under the call's
 * {@link TaskCallTag} for the caller to {@link take} once the client has settled the call.
 * Only tagged calls are watched; every message still reaches the client unchanged.
 */
export class TaskCapture implements TaskAnswerCapture {
  /**
   * The tags this capture handed out and not yet taken (only those are recognised in `send`
   * options), each with the JSON-RPC id of its call once sent. Every tag is taken (its call
   * settled), so none stays.
   */
  readonly #issued = new Map<TaskCallTag, number | string | undefined>();
  /** The tagged `tools/call` requests waiting for their answer, by JSON-RPC id. */
  readonly #inFlight = new Map<number | string, TaskCallTag>();
  /** The task answers captured and not yet taken, by tag. */
  readonly #captured = new Map<TaskCallTag, CapturedTaskAnswer>();

  /** A new tag for one call; pass it as the request option `onresumptiontoken`. */
  tag(): TaskCallTag {
    const tag: TaskCallTag = () => undefined;
    this.#issued.set(tag, undefined);
    return tag;
  }

  /** The task answer captured for `tag`, if one came; forgets it and the call. */
  take(tag: TaskCallTag): CapturedTaskAnswer | undefined {
    const answer = this.#captured.get(tag);
    this.#captured.delete(tag);
    const id = this.#issued.get(tag);
    this.#issued.delete(tag);
    if (id !== undefined && this.#inFlight.get(id) === tag) this.#inFlight.delete(id);
    return answer;
  }

  /** Watches `transport`: the ids of tagged `tools/call` requests, and the answers to them. */
  attach(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const tag = (options as { onresumptiontoken?: unknown } | undefined)?.onresumptiontoken;
      if (
        typeof tag === 'function' &&
        this.#issued.has(tag as TaskCallTag) &&
        'method' in message &&
        message.method === 'tools/call' &&
        'id' in message
      ) {
        this.#issued.set(tag as TaskCallTag, message.id);
        this.#inFlight.set(message.id, tag as TaskCallTag);
      }
      return send(message, options);
    };
    interceptIncoming(transport, (message, extra, deliver) => {
      this.#observe(message);
      deliver(message, extra);
    });
  }

  #observe(message: JSONRPCMessage): void {
    if (this.#inFlight.size === 0 || !('id' in message) || message.id === undefined) return;
    const tag = this.#inFlight.get(message.id as number | string);
    if (tag === undefined || 'method' in message) return;
    this.#inFlight.delete(message.id as number | string);
    const result = (message as { result?: unknown }).result;
    if (!isObject(result) || result['resultType'] !== 'task') return;
    this.#captured.set(tag, taskOf(message.id as number | string, result));
  }
}
