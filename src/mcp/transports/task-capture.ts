import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { interceptIncoming } from './incoming-messages.js';
import type {
  CapturedTaskAnswer,
  LateTask,
  TaskAnswerCapture,
  TaskCallTag,
} from '../contracts/task-types.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The task of a `CreateTaskResult`, or the first thing wrong with it. */
function taskOf(requestId: number | string, result: Record<string, unknown>): CapturedTaskAnswer {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = result;
  if (typeof taskId !== 'string' || taskId === '')
    return { kind: 'malformed', requestId, problem: 'no taskId' };
  // the task may exist: its id goes with the problem, so the task is cancelled
  const malformed = (problem: string): CapturedTaskAnswer => ({
    kind: 'malformed',
    requestId,
    problem,
    taskId,
  });
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
 * How long a call given up before its answer came (an abort, a timeout) still watches for
 * that answer, and how long its held response stream stays open: an answer already on its
 * way arrives within it, and a server is never kept from hearing of the abort for longer.
 */
export const LATE_ANSWER_GRACE_MS = 2_000;

/** A call's response stream kept open past its abort until its answer is read. */
interface HeldStream {
  readonly original: AbortSignal;
  readonly held: AbortController;
  readonly onAbort: () => void;
  timer?: ReturnType<typeof setTimeout>;
}

/** A call given up before its answer came: a task answer still coming goes to `onLate`. */
interface LateWatch {
  readonly onLate: (task: LateTask) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/**
 * Captures the `CreateTaskResult` a server answers a `tools/call` with (the Tasks extension,
 * SEP-2663) below the official client's decoding: the client (2.4.0) rejects such an answer
 * with `UNSUPPORTED_RESULT_TYPE` and loses the task id, so the capture reads it off the
 * incoming message first, on the same transport, and keeps it under the call's
 * {@link TaskCallTag} for the caller to {@link take} once the client has settled the call.
 * Only tagged calls are watched; every message still reaches the client unchanged.
 *
 * A call given up before its answer came is watched a little longer
 * ({@link LATE_ANSWER_GRACE_MS}): a task answered meanwhile is handed to whoever gave up,
 * who cancels it. On a 2026-07-28 Streamable HTTP connection an abort cuts the call's
 * response stream (the protocol's cancellation), which would drop an answer already on its
 * way; a call tagged with `hold` keeps its stream open until its answer is read, or the grace
 * passes.
 */
export class TaskCapture implements TaskAnswerCapture {
  /**
   * The tags this capture handed out and not yet taken (only those are recognised in `send`
   * options), each with the JSON-RPC id of its call once sent, and whether its stream is held.
   */
  readonly #issued = new Map<TaskCallTag, { id?: number | string; hold: boolean }>();
  /** The tagged `tools/call` requests waiting for their answer, by JSON-RPC id. */
  readonly #inFlight = new Map<number | string, TaskCallTag>();
  /** The task answers captured and not yet taken, by tag. */
  readonly #captured = new Map<TaskCallTag, CapturedTaskAnswer>();
  /** Calls given up before their answer came, watched for a late task answer. */
  readonly #late = new Map<number | string, LateWatch>();
  /** Response streams held past an abort, by JSON-RPC id. */
  readonly #held = new Map<number | string, HeldStream>();

  /** A new tag for one call; pass it as the request option `onresumptiontoken`. */
  tag(options?: { readonly hold?: boolean }): TaskCallTag {
    const tag: TaskCallTag = () => undefined;
    this.#issued.set(tag, { hold: options?.hold === true });
    return tag;
  }

  /**
   * The task answer captured for `tag`, if one came; forgets it and the call. With `onLate`
   * and no answer yet, a task answer for the call within {@link LATE_ANSWER_GRACE_MS} goes to
   * `onLate`.
   */
  take(tag: TaskCallTag, onLate?: (task: LateTask) => void): CapturedTaskAnswer | undefined {
    const answer = this.#captured.get(tag);
    this.#captured.delete(tag);
    const id = this.#issued.get(tag)?.id;
    this.#issued.delete(tag);
    if (id === undefined || this.#inFlight.get(id) !== tag) return answer;
    if (answer === undefined && onLate) {
      // still unanswered: watched a little longer, then forgotten
      const timer = setTimeout(() => {
        this.#late.delete(id);
        if (this.#inFlight.get(id) === tag) this.#inFlight.delete(id);
        this.#release(id);
      }, LATE_ANSWER_GRACE_MS);
      timer.unref?.();
      this.#late.set(id, { onLate, timer });
      return undefined;
    }
    this.#inFlight.delete(id);
    this.#release(id);
    return answer;
  }

  /** Watches `transport`: the ids of tagged `tools/call` requests, and the answers to them. */
  attach(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const tag = (options as { onresumptiontoken?: unknown } | undefined)?.onresumptiontoken;
      const issued = typeof tag === 'function' ? this.#issued.get(tag as TaskCallTag) : undefined;
      if (
        !issued ||
        !('method' in message) ||
        message.method !== 'tools/call' ||
        !('id' in message)
      )
        return send(message, options);
      issued.id = message.id;
      this.#inFlight.set(message.id, tag as TaskCallTag);
      const requestSignal = options?.requestSignal;
      if (!issued.hold || requestSignal === undefined) return send(message, options);
      return send(message, { ...options, requestSignal: this.#hold(message.id, requestSignal) });
    };
    interceptIncoming(transport, (message, extra, deliver) => {
      const id = this.#observe(message);
      deliver(message, extra);
      if (id !== undefined) this.#release(id);
    });
  }

  /**
   * The signal the transport gets for a held call's response stream: aborted with the
   * call's own once its answer was read, or {@link LATE_ANSWER_GRACE_MS} after it.
   */
  #hold(id: number | string, original: AbortSignal): AbortSignal {
    const held = new AbortController();
    if (original.aborted) {
      held.abort(original.reason);
      return held.signal;
    }
    const stream: HeldStream = {
      original,
      held,
      onAbort: () => {
        stream.timer = setTimeout(() => this.#release(id), LATE_ANSWER_GRACE_MS);
        stream.timer.unref?.();
      },
    };
    original.addEventListener('abort', stream.onAbort, { once: true });
    this.#held.set(id, stream);
    return held.signal;
  }

  /** Lets a held stream go: cut now if its call was aborted, else left to end by itself. */
  #release(id: number | string): void {
    const stream = this.#held.get(id);
    if (!stream) return;
    this.#held.delete(id);
    stream.original.removeEventListener('abort', stream.onAbort);
    if (stream.timer) clearTimeout(stream.timer);
    if (stream.original.aborted) stream.held.abort(stream.original.reason);
  }

  /** Reads an answer to a watched call; returns its id when it was one. */
  #observe(message: JSONRPCMessage): number | string | undefined {
    if (this.#inFlight.size === 0 || !('id' in message) || message.id === undefined) return;
    const id = message.id as number | string;
    const tag = this.#inFlight.get(id);
    if (tag === undefined || 'method' in message) return;
    this.#inFlight.delete(id);
    const late = this.#late.get(id);
    this.#late.delete(id);
    if (late) clearTimeout(late.timer);
    const result = (message as { result?: unknown }).result;
    if (!isObject(result) || result['resultType'] !== 'task') return id;
    const answer = taskOf(id, result);
    const lateId = answer.kind === 'task' ? answer.task.taskId : answer.taskId;
    if (!late) this.#captured.set(tag, answer);
    else if (lateId !== undefined) {
      try {
        late.onLate({ taskId: lateId });
      } catch {
        // whoever gave up reports its own failures; the transport goes on
      }
    }
    return id;
  }
}
