import { abortedError } from '../errors/index.js';
import { addUsage, ZERO_USAGE } from '../model/index.js';
import type { Usage } from '../model/index.js';
import type { AuthorizationDecision, AuthorizationRequest, CallPolicy } from '../policy/index.js';
import type { TraceContext } from '../util/index.js';
import type { CallParking } from './call-parking.js';
import type {
  ExecutorEvent,
  ExecutorRunContext,
  ToolExecutionContext,
  ToolProgress,
  ToolRunLink,
} from './tool-types.js';

/** Where a run's scope delivers what its tools report. The agent's run provides it. */
export interface RunSink {
  /** Adds an event to the run's event stream (its observers are told). */
  emit(event: ExecutorEvent): void;
  /** Adds another run's event (an `asTool` sub-run's) to the stream; observers are not told again. */
  forward(event: ExecutorEvent): void;
  /** Authorizes a capability (`mcp_connect:<server>`, `mcp_sampling:<server>`) for the run. */
  authorize(request: AuthorizationRequest, signal: AbortSignal): Promise<AuthorizationDecision>;
  /** Counts usage the agent's own model spent during the run (sampling) toward the agent. */
  countOwnUsage(usage: Usage): void;
  /**
   * Counts usage spent during the run outside its own model turns (sampling, a delegated run a
   * tool reports) toward the run's budget (SPEC 15.4); absent when the run has none.
   */
  countSpend?(usage: Usage): void;
}

/** The limits of a run that its tool calls are held to. */
export interface RunScopeLimits {
  readonly maxToolArgumentBytes: number;
  readonly maxToolResultBytes: number;
}

/**
 * A sign-in a run's catalog found missing (SPEC 15.4): a server that signs each user in has no
 * working sign-in for the run's principal. Names no URL: a fresh one comes from
 * `agent.mcp.authenticate(server, { principal })`.
 */
export interface SignInNeed {
  readonly server: string;
  /** The authorization server's issuer, when known. */
  readonly issuer?: string;
}

/** What a run's scope is opened with. */
export interface RunScopeInit {
  readonly sessionId: string;
  readonly runId: string;
  /** The user the run acts for (SPEC 15.4); absent for the local user. */
  readonly principal?: string | undefined;
  readonly signal: AbortSignal;
  readonly limits: RunScopeLimits;
  /** The run's call policy, handed to tools that check targets of their own. */
  readonly policy?: CallPolicy;
  readonly sink: RunSink;
}

/** What a call's scope is opened with, besides its run. */
export interface CallScopeInit {
  readonly callId: string;
  readonly iteration: number;
  /** Turns a progress report into the call's `tool.progress` event. */
  readonly progress: (progress: ToolProgress) => void;
  readonly traceContext?: TraceContext | undefined;
  /** Parking facts of the call (a run whose store keeps waits), for Muster's own executors. */
  readonly parking?: CallParking | undefined;
}

/**
 * One run as every tool source sees it: its identity, signal, limits and policy, and the one
 * way to report into it (events, authorization, usage). Executors get it in `prepareRun` and,
 * per call, a {@link CallScope} derived from it; none keeps a map of runs. Once the run ends
 * the scope is closed: its events are dropped, `authorize` is refused with `ABORTED`, and it
 * lets go of the run's sink, so a scope an executor kept holds nothing of the run.
 */
export class RunScope implements ExecutorRunContext {
  readonly sessionId: string;
  readonly runId: string;
  readonly principal: string | undefined;
  readonly signal: AbortSignal;
  readonly limits: RunScopeLimits;
  readonly policy: CallPolicy | undefined;
  #sink: RunSink | undefined;
  #usage: Usage = ZERO_USAGE;
  readonly #signIns: SignInNeed[] = [];

  constructor(init: RunScopeInit) {
    this.sessionId = init.sessionId;
    this.runId = init.runId;
    this.principal = init.principal;
    this.signal = init.signal;
    this.limits = init.limits;
    this.policy = init.policy;
    this.#sink = init.sink;
  }

  /** True once the run has ended. */
  get closed(): boolean {
    return this.#sink === undefined;
  }

  // emit and authorize are bound (arrow fields): executors hand `ctx.emit` on as a callback

  /** Reports an event into the run (named after it); dropped once the run has ended. */
  readonly emit = (event: ExecutorEvent): void => {
    this.#sink?.emit({ ...event, sessionId: this.sessionId, runId: this.runId });
  };

  /**
   * Authorizes through the run's policy, as the run's principal (`request.principal`, SPEC
   * 15.4); refused with `ABORTED` once the run has ended.
   */
  readonly authorize = (request: AuthorizationRequest): Promise<AuthorizationDecision> => {
    const sink = this.#sink;
    if (!sink) return Promise.reject(ended('The run', request));
    const principal = this.principal;
    if (principal !== undefined) return sink.authorize({ ...request, principal }, this.signal);
    // the local user's run: no principal reaches the policy, whatever a source put there
    if (request.principal === undefined) return sink.authorize(request, this.signal);
    const { principal: _given, ...local } = request;
    return sink.authorize(local, this.signal);
  };

  /** Adds another run's event to this run's stream; dropped once the run has ended. */
  forward(event: ExecutorEvent): void {
    this.#sink?.forward(event);
  }

  /**
   * Counts usage spent during the run: `own` usage (the agent's model answering a server)
   * also counts toward the agent; a delegated run's does not (its agent counted it). Both
   * count toward the run's budget unless `budgeted` (a delegated run linked to this run's
   * budget counted it as it went).
   */
  addUsage(usage: Usage, own: boolean, budgeted = false): void {
    const sink = this.#sink;
    if (!sink) return;
    this.#usage = addUsage(this.#usage, usage);
    if (own) sink.countOwnUsage(usage);
    if (!budgeted) sink.countSpend?.(usage);
  }

  /** Takes the usage counted so far (undefined when there was none). */
  takeUsage(): Usage | undefined {
    const usage = this.#usage;
    this.#usage = ZERO_USAGE;
    return usage.totalTokens + usage.inputTokens + usage.outputTokens > 0 ? usage : undefined;
  }

  /**
   * Records that the run's principal has no working sign-in to a server its catalog needs
   * (the run may park on it before its first model request); dropped once the run has ended.
   */
  needsSignIn(need: SignInNeed): void {
    if (this.#sink && !this.#signIns.some((n) => n.server === need.server))
      this.#signIns.push(need);
  }

  /** The sign-ins recorded by {@link needsSignIn}, taken (each is reported once). */
  takeSignIns(): readonly SignInNeed[] {
    return this.#signIns.splice(0);
  }

  /** The scope of one call of this run. */
  call(init: CallScopeInit): CallScope {
    return new CallScope(this, init);
  }

  /** Ends the scope (idempotent); every call scope derived from it ends with it. */
  close(): void {
    this.#sink = undefined;
    this.#usage = ZERO_USAGE;
  }
}

/**
 * One tool call's scope, derived from its run's: what the executor receives as its
 * `ToolExecutionContext`. It is closed when the call ends (or its run does): a scope an
 * executor keeps past its call has its progress and forwarded events dropped, and
 * `authorize` refused with `ABORTED`. The run itself is reached only through
 * {@link CallScope.runOf}, which the package does not export, so a host's executor cannot
 * report events or usage into the run by hand.
 */
export class CallScope implements ToolExecutionContext {
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly runId: string;
  readonly principal: string | undefined;
  readonly callId: string;
  readonly iteration: number;
  readonly maxResultBytes: number;
  readonly policy: CallPolicy | undefined;
  readonly traceContext: TraceContext | undefined;
  /** What a tool that runs an agent of its own reports into this run. */
  readonly run: ToolRunLink;
  #run: RunScope | undefined;
  #progress: ((progress: ToolProgress) => void) | undefined;
  readonly #parking: CallParking | undefined;

  constructor(run: RunScope, init: CallScopeInit) {
    this.signal = run.signal;
    this.sessionId = run.sessionId;
    this.runId = run.runId;
    this.principal = run.principal;
    this.callId = init.callId;
    this.iteration = init.iteration;
    this.maxResultBytes = run.limits.maxToolResultBytes;
    this.policy = run.policy;
    this.traceContext = init.traceContext;
    this.#run = run;
    this.#progress = init.progress;
    this.#parking = init.parking;
    this.run = {
      forward: (event) => this.#live()?.forward(event),
      addUsage: (usage) => this.#live()?.addUsage(usage, false),
    };
  }

  /** True once the call (or its run) has ended. */
  get closed(): boolean {
    return this.#live() === undefined;
  }

  /** Reports progress as a `tool.progress` event; dropped once the call has ended. */
  readonly reportProgress = (progress: ToolProgress): void => {
    const report = this.#progress;
    if (!report || this.#live() === undefined || this.signal.aborted) return;
    if (typeof progress?.progress !== 'number') return;
    report(progress);
  };

  /** Authorizes through the run's policy; refused with `ABORTED` once the call has ended. */
  authorize(request: AuthorizationRequest): Promise<AuthorizationDecision> {
    const run = this.#live();
    if (!run) return Promise.reject(ended(`The call '${this.callId}'`, request));
    return run.authorize(request);
  }

  /**
   * The run of a call Muster made, while the call lasts: what the server does during it
   * (events, approvals, sampling usage) is reported there, and still counts once the call
   * has ended as long as the run goes on. Undefined for a context Muster did not make (a host
   * calling an executor itself) and once the call has ended.
   */
  static runOf(ctx: ToolExecutionContext): RunScope | undefined {
    return #run in ctx ? ctx.#live() : undefined;
  }

  /**
   * The parking facts of a call Muster made in a run that can park (SPEC 15.1); undefined
   * otherwise, and once the call has ended.
   */
  static parkingOf(ctx: ToolExecutionContext): CallParking | undefined {
    return #run in ctx && ctx.#live() !== undefined ? ctx.#parking : undefined;
  }

  /** Ends the call's scope (idempotent). */
  close(): void {
    this.#run = undefined;
    this.#progress = undefined;
  }

  #live(): RunScope | undefined {
    const run = this.#run;
    return run === undefined || run.closed ? undefined : run;
  }
}

/** The parking facts of a call, while it lasts (see {@link CallScope.parkingOf}). */
export function callParkingOf(ctx: ToolExecutionContext): CallParking | undefined {
  return CallScope.parkingOf(ctx);
}

/** The run of a call, while it lasts, when `ctx` is one Muster made (see {@link CallScope.runOf}). */
export function runScopeOf(ctx: ToolExecutionContext): RunScope | undefined {
  return CallScope.runOf(ctx);
}

function ended(what: string, request: AuthorizationRequest) {
  return abortedError(
    what,
    new Error(`it has ended, so '${request.capability}' can no longer be authorized for it`),
  );
}
