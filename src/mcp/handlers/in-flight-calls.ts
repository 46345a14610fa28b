import type { Usage } from '../../model/index.js';
import type { AuthorizationDecision, AuthorizationRequest } from '../../policy/index.js';
import type { ExecutorEvent } from '../../tools/index.js';

/**
 * The run a server request is reported into: its events, its authorization and the usage
 * spent answering it. A run's scope, which drops all three once the run has ended.
 */
export interface InFlightRun {
  /** Reports an event into the run. */
  readonly emit: (event: ExecutorEvent) => void;
  /** Authorizes through the run's policy. */
  readonly authorize: (request: AuthorizationRequest) => Promise<AuthorizationDecision>;
  /** Counts usage spent answering the server toward the run (`own`: the agent's model). */
  addUsage(usage: Usage, own: boolean): void;
}

/**
 * The call a server request is attributed to. A request names no call on the wire, so the
 * call is a best guess among the session's calls in flight; what it reports goes to the
 * call's run, which outlives the guess (a request attributed to a call that ends first still
 * counts toward its run). A call made outside a run has no `run`: its requests are background.
 */
export interface InFlightCall {
  readonly sessionId: string;
  readonly runId: string;
  readonly callId: string;
  readonly signal: AbortSignal;
  readonly run?: InFlightRun;
}

/** The call of a request refused because that call was cancelled (see `InFlightCalls.cancelled`). */
export interface CancelledCall {
  readonly sessionId: string;
  readonly runId: string;
  readonly callId: string;
}

/**
 * How long a connection remembers the last call it saw cancelled (its run aborted, or its
 * budget spent), once that call has ended: a server that ignored the cancel and asks for
 * sampling within it is refused (SPEC 15.4).
 */
export const CANCELLED_CALL_MS = 60_000;

/**
 * Which tool calls are in flight on which connection, so that a request the server makes of
 * the client (sampling, elicitation, roots) is attributed to the session, run and call it
 * arrived during: its events go to that run, its approval names that call. A connection is a
 * server's shared one (`principal` undefined) or one principal's own (SPEC 15.4): a request
 * that arrives on a principal's connection is only ever attributed to that principal's calls
 * on it, never to another principal's or the local user's. A server's request names no call
 * on the wire, so attribution fails closed: a request is attributed only when every call in
 * flight on that connection belongs to one session (then to that session's most recent call);
 * with calls of several sessions in flight, or none, it belongs to no run. Calls whose signal
 * aborted (their run ended by abort) are not counted.
 */
export class InFlightCalls {
  readonly #byConnection = new Map<string, InFlightCall[]>();
  /** The last call each connection saw end cancelled, until when it is remembered. */
  readonly #cancelled = new Map<string, { readonly call: CancelledCall; readonly until: number }>();

  /** Records a call on `server` (for `principal`, on its own connection); the returned function ends it. */
  begin(server: string, call: InFlightCall, principal?: string): () => void {
    const key = connectionKey(server, principal);
    const calls = this.#byConnection.get(key) ?? [];
    calls.push(call);
    this.#byConnection.set(key, calls);
    return () => {
      const list = this.#byConnection.get(key);
      const at = list?.indexOf(call) ?? -1;
      if (list && at >= 0) list.splice(at, 1);
      if (list?.length === 0) this.#byConnection.delete(key);
      if (call.signal.aborted)
        this.#cancelled.set(key, {
          call: cancelledCall(call),
          until: Date.now() + CANCELLED_CALL_MS,
        });
    };
  }

  /**
   * The call a request on the connection of `server` (`principal`'s own, when given) is
   * attributed to: the most recent call in flight on that connection when all of them belong
   * to one session, else none (the request goes to no run).
   */
  attributed(server: string, principal?: string): InFlightCall | undefined {
    // a call whose run was aborted (or whose agent closed) belongs to no live run any more
    const calls = this.#byConnection
      .get(connectionKey(server, principal))
      ?.filter((c) => !c.signal.aborted);
    const last = calls?.at(-1);
    if (!calls || !last) return undefined;
    return calls.every((c) => c.sessionId === last.sessionId) ? last : undefined;
  }

  /**
   * The cancelled call a request on the connection of `server` (`principal`'s own, when given)
   * came from, when no call that is not cancelled is in flight there: the latest one still in
   * flight whose signal aborted, or the last one that ended so within `CANCELLED_CALL_MS`.
   * Such a request (a server that ignored the cancel) belongs to no live run: a sampling
   * request is refused rather than answered as background work (SPEC 15.4).
   */
  cancelled(server: string, principal?: string): CancelledCall | undefined {
    const key = connectionKey(server, principal);
    const calls = this.#byConnection.get(key);
    if (calls?.some((c) => !c.signal.aborted)) return undefined;
    const aborted = calls?.at(-1);
    if (aborted) return cancelledCall(aborted);
    const last = this.#cancelled.get(key);
    if (!last) return undefined;
    if (last.until > Date.now()) return last.call;
    this.#cancelled.delete(key);
    return undefined;
  }
}

function cancelledCall(call: InFlightCall): CancelledCall {
  return { sessionId: call.sessionId, runId: call.runId, callId: call.callId };
}

/** The key of one connection: the server's shared one, or `principal`'s (`\u0000` is in neither name). */
function connectionKey(server: string, principal: string | undefined): string {
  return principal === undefined ? server : `${server}\u0000${principal}`;
}
