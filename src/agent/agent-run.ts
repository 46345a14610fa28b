import { UNCHANGED } from './step-commits.js';
import { setMaxListeners } from 'node:events';
import { abortedError, toMusterError } from '../errors/index.js';
import type { MusterError } from '../errors/index.js';
import { ZERO_USAGE } from '../model/index.js';
import type { ModelMessage, ToolCallPart, Usage } from '../model/index.js';
import { RunScope } from '../tools/index.js';
import type { ToolCallRequest, ToolCatalog } from '../tools/index.js';
import { callIsolated, followAbort, isoNow, raceAbort } from '../util/index.js';
import type { RunRequest } from './agent-options.js';
import type { AgentScope } from './agent-scope.js';
import { EventQueue } from './event-queue.js';
import type { AgentEvent } from './events.js';
import type { Limits } from './limits.js';
import { loopContext } from './loop-context.js';
import { RunParked, runLoop } from './run-loop.js';
import type { RunResult } from './run-loop.js';
import { UNOBSERVED } from './run-observer.js';
import type { RunObserver } from './run-observer.js';
import { prepareRunTools } from './run-setup.js';
import { claimSession } from './session-claim.js';
import type { SessionClaim } from './session-claim.js';
import { openSessionRun, resumeSessionRun } from './session-run.js';
import type { SessionOpening, SessionRun } from './session-run.js';
import { repairedCallEvent, unansweredCallResults } from './transcript-repair.js';
import { isReplayable } from './call-replay.js';
import { guardedStore } from './store-guard.js';
import type { GuardedSessionStore } from './store-guard.js';
import { readCommittedAnswer } from './output/index.js';
import { RunWaits } from './run-waits.js';
import { liveWaits, openWaits, publicWait, sessionWaits } from './open-waits.js';
import { assertSessionPrincipal } from './principal-check.js';
import type { SessionBudget, Wait } from '../session/index.js';
import { RunEventLog } from './run-event-log.js';
import { steeringDue, takeSteering } from './steering.js';
import type { SteeringTarget } from './steering.js';
import { completeRun, failRun, parkRun } from './run-end.js';
import { planRun } from './run-plan.js';
import type { RunPlan } from './run-plan.js';
import type { RunEnd } from './run-end.js';
import { RunBudget } from './run-budget.js';
import { budgetLimits, hasBudget } from './limits.js';
import type { BudgetLimits } from './limits.js';
import { unpricedError } from './run-plan.js';
import type { ToolExecutionContext } from '../tools/index.js';

/** Which run this is: its ids, whether it continues a session, the tool it runs as. */
export interface AgentRunIds {
  readonly sessionId: string;
  readonly runId: string;
  /** True for `resume()`: the session's run died and this one continues it. */
  readonly resume: boolean;
  /** The tool this run answers (`asTool`), naming it in traces when the agent has no name. */
  readonly toolName?: string | undefined;
  /** For a resume, the session id `resume()` was given (checked as the run starts). */
  readonly named?: unknown;
  /** The tool call of the run that delegated to this one (`asTool`): its budget counts this run. */
  readonly caller?: ToolExecutionContext | undefined;
  /**
   * The run only starts a new session: one that exists once the run holds its lease is
   * refused (`SESSION_ALREADY_RUNNING`) before anything is written (a worker's start job,
   * SPEC 15.5: another job of the same request started it).
   */
  readonly createOnly?: boolean;
}

/**
 * One run of a session, as `run()`, `resume()` and `asTool` make it: nothing starts before
 * its events are first read; then it claims the session, plans, opens the session, runs the
 * loop and completes or fails, and in every case closes its scope and releases its claim.
 * Breaking out of the events aborts it and waits for it to end.
 */
export class AgentRun {
  readonly #runtime: AgentScope;
  readonly #raw: RunRequest;
  readonly #ids: AgentRunIds;
  readonly #queue = new EventQueue<AgentEvent>();
  readonly #controller = new AbortController();
  #observer: RunObserver = UNOBSERVED;
  #claim: SessionClaim | undefined;
  #session: SessionRun | undefined;
  #scope: RunScope | undefined;
  #waits: RunWaits | undefined;
  /** The session's event log, once the run opened the session (SPEC 15.2). */
  #log: RunEventLog | undefined;
  /** The run's budget (SPEC 15.4), once the run opened its session, when it has one. */
  #budget: RunBudget | undefined;
  /** Aborts the run's tool calls (not the run) when its budget runs out. */
  #calls: AbortController | undefined;
  /**
   * When the run started executing, its events first read (`performance.now()`): its budget's
   * active time counts from there, not from `run()`.
   */
  #startedAt = 0;
  readonly #store: GuardedSessionStore;

  /**
   * `request` is the run request, or for a resume (`ids.resume`) the options of `resume()`
   * (the session is `ids.sessionId`).
   */
  constructor(runtime: AgentScope, request: RunRequest, ids: AgentRunIds) {
    this.#runtime = runtime;
    this.#raw = request;
    this.#ids = ids;
    // every write of the run names its lease, once it holds one
    this.#store = guardedStore(
      runtime.store,
      () => this.#claim?.writeOptions() ?? {},
      (operation) => (this.#claim ? this.#claim.fenced(operation) : operation()),
      () => this.#log,
      (sessionId) =>
        this.#budget?.own && sessionId === this.#ids.sessionId ? this.#budget.record() : undefined,
    );
  }

  /**
   * The run's events. The run's error, if any, is thrown after its last event (after
   * `session.failed`). Breaking out aborts the run and waits for it to end, so everything it
   * opened is closed by then.
   */
  async *events(): AsyncGenerator<AgentEvent> {
    const queue = this.#queue;
    const task = this.#execute().finally(() => queue.close());
    let drained = false;
    try {
      // the queue is read here directly (not through a second generator): one promise per
      // wait for an empty queue, none per event
      for (;;) {
        for (let ev = queue.take(); ev !== undefined; ev = queue.take()) yield ev;
        if (queue.done) break;
        await queue.wait();
      }
      drained = true;
    } finally {
      if (!drained)
        this.#controller.abort(
          abortedError('The run', new Error('the consumer stopped iterating')),
        );
      await task;
    }
    const error = await task;
    if (error) throw error;
  }

  /** The steps of the run, in order; resolves with its failure, if any. */
  async #execute(): Promise<MusterError | undefined> {
    this.#startedAt = performance.now();
    try {
      this.#claimSession();
    } catch (err) {
      return this.#failed(err);
    }
    const unfollow = this.#followSignals();
    try {
      const { plan, observer } = await planRun(this.#runtime, this.#raw, this.#ids);
      if (observer) this.#observer = observer;
      if (this.#ids.resume && (await this.#stillWaiting(plan))) return undefined;
      await this.#openSession(plan);
      const result = await this.#runLoop(plan);
      await completeRun(this.#end(), result);
      return undefined;
    } catch (err) {
      if (err instanceof RunParked) return await parkRun(this.#end(), err);
      if (err instanceof StillWaiting) return this.#reportWaiting(err.waits);
      return await failRun(this.#end(), err);
    } finally {
      unfollow();
      this.#budget?.close();
      // what the run's commits never logged goes out unnumbered, before the iterator ends
      this.#log?.close();
      this.#scope?.close();
      await this.#claim!.release((e) => this.#runtime.reportError(e));
    }
  }

  /**
   * Adds an event to the run: its usage to the agent and the observer (its spans) at once;
   * the stream and `onEvent` once it may be seen (a logged event once its commit numbered it,
   * see `RunEventLog`).
   */
  #emit(event: AgentEvent): void {
    this.#observe(event);
    if (this.#log) this.#log.emit(event);
    else this.#deliver(event);
  }

  /** Adds an event to the run at once, unlogged (before the log opens, or when it ends). */
  #publish(event: AgentEvent): void {
    this.#observe(event);
    this.#deliver(event);
  }

  #observe(event: AgentEvent): void {
    if (event.type === 'model.completed' && event.runId === this.#ids.runId)
      this.#runtime.usage.add(event.usage);
    this.#observer.onEvent(event);
  }

  /** Hands an event to the stream and `onEvent`. */
  #deliver(event: AgentEvent): void {
    this.#queue.push(event);
    const observability = this.#runtime.options.observability;
    const onEvent = observability?.onEvent;
    if (onEvent) callIsolated(() => onEvent(event), observability?.onError);
  }

  /** Claims the session in this process (`SESSION_ALREADY_RUNNING` when it runs here). */
  #claimSession(): void {
    this.#runtime.assertOpen();
    this.#claim = claimSession(this.#runtime, this.#ids.sessionId, (reason) =>
      this.#controller.abort(reason),
    );
  }

  /**
   * Makes the run's signal follow the agent's close and the caller's signal; returns the
   * function that stops following them.
   */
  #followSignals(): () => void {
    // the run's signal is its own controller's (no AbortSignal.any per run: it costs a signal
    // and weak references)
    const signal = this.#controller.signal;
    const unfollow = followAbort(this.#controller, [
      this.#runtime.closeSignal,
      this.#raw?.signal instanceof AbortSignal ? this.#raw.signal : undefined,
    ]);
    // one run's signal fans out to every call in flight (and the MCP client adds its own)
    setMaxListeners(0, signal);
    return unfollow;
  }

  /**
   * Leases the session in the store, waits for the tool sources to initialize, then opens
   * (or, resuming, repairs) the session and reports `session.started`. An aborted run stops
   * before the session is touched: it writes nothing.
   */
  async #openSession(plan: RunPlan): Promise<void> {
    const runtime = this.#runtime;
    const { sessionId, runId, resume } = this.#ids;
    const signal = this.#controller.signal;
    await this.#claim!.lease(runtime.store, runId);
    if (!runtime.initialized)
      await raceAbort(runtime.ensureInitialized(), signal, 'Initialization');
    else if (signal.aborted) throw abortedError('Initialization', signal.reason);
    const principal = plan.request.principal;
    this.#waits = await RunWaits.open({
      sessionId,
      runId,
      principal,
      store: this.#store,
      origin: runtime.store,
      options: runtime.options.waits,
      emit: (event) => this.#emit(event),
      writeOptions: () => this.#claim?.writeOptions() ?? {},
    });
    // read again under the lease: another resume may have parked it anew meanwhile
    const open = openWaits(await liveWaits(this.#store, this.#waits.found), Date.now());
    if (resume && open.length > 0) throw new StillWaiting(open);
    // the run's first events ride the commit that opens it: none is published unless it lands
    const first: AgentEvent[] = [];
    const onOpening = (opening: SessionOpening): void => {
      const log = (this.#log = RunEventLog.open(
        runtime.store,
        opening.eventSeq,
        runtime.options.eventLog === 'all',
        (event) => this.#deliver(event),
        () => this.#store.update(sessionId, { ...UNCHANGED }),
      ));
      first.push({
        type: 'session.started',
        timestamp: opening.startedAt,
        sessionId,
        runId,
        continued: opening.continued,
        modelName: plan.modelName,
        ...(principal !== undefined ? { principal } : {}),
      });
      // the calls a previous run left unanswered end now, with the results they were given
      for (const repaired of opening.repaired) first.push(repairedCallEvent(this.#ids, repaired));
      held = first.every((event) => log.hold(event));
      this.#openBudget(plan, resume ? opening.budget : undefined);
    };
    let held = false;
    let session: SessionRun;
    try {
      session = resume
        ? await resumeSessionRun(
            this.#store,
            sessionId,
            this.#waits.waitingCalls,
            principal,
            onOpening,
            runtime.options.mcp?.replay === 'idempotent',
          )
        : await openSessionRun(
            this.#store,
            sessionId,
            plan.request,
            onOpening,
            this.#ids.createOnly === true,
          );
    } catch (err) {
      // the run did not start: only its failure is reported
      for (const event of first) this.#log?.drop(event);
      throw err;
    }
    // the commit landed: the log has published them (or, keeping none, publishes them now)
    for (const event of first) {
      this.#observe(event);
      if (!held) this.#log?.emit(event);
    }
    // what the budget reported as it opened (a resumed run at a limit) follows session.started
    this.#budget?.flush();
    // the waits found are used (resume) or void (a new run repairs their calls): either way
    // they leave the store now, before any call runs; the task waits of the calls a resume
    // polls on stay until their results are committed (SPEC 15.3)
    await this.#waits.takeUp(new Set((session.pendingCalls ?? []).map((c) => c.callId)));
    this.#session = session;
  }

  /**
   * Opens the run's budget (SPEC 15.4) when it has one of its own or a delegating run has one:
   * the agent's budget limits, those a resumed run started with, then the run's own; a resume
   * goes on from what was spent. Refuses `maxCostUsd` for a model without a price before
   * anything is written.
   */
  #openBudget(plan: RunPlan, stored: SessionBudget | undefined): void {
    const limits: BudgetLimits = {
      ...budgetLimits(this.#runtime.limits),
      ...stored?.limits,
      ...budgetLimits(plan.request.limits),
    };
    const parent = plan.callerBudget;
    if (!hasBudget(limits) && !parent) return;
    if (limits.maxCostUsd !== undefined && !plan.price) throw unpricedError(plan.modelName, true);
    const calls = new AbortController();
    followAbort(calls, [this.#controller.signal]);
    setMaxListeners(0, calls.signal);
    this.#calls = calls;
    const { sessionId, runId } = this.#ids;
    this.#budget = new RunBudget({
      sessionId,
      runId,
      limits,
      parent,
      stored,
      startedAt: this.#startedAt,
      emit: (event) => this.#emit(event),
      onExhausted: (error) => calls.abort(error),
      onDelegated: (usage) => this.#scope?.addUsage(usage, false, true),
      // what a delegated run, a sampling answer or the clock spent reaches the store before
      // the run's next step commit: a process that dies meanwhile does not lose it
      save: () => this.#store.saveBudget(sessionId),
    });
  }

  /**
   * Opens the run's scope, prepares its tools and runs the loop; a resumed run whose final
   * answer was committed completes with it, without another model turn.
   */
  async #runLoop(plan: RunPlan): Promise<RunResult> {
    const runtime = this.#runtime;
    const session = this.#session!;
    const scope = this.#openScope(plan.limits, plan.request.principal);
    const waits = this.#waits!;
    // a resumed run's sign-ins: made (decided) go on, expired ones fail it (SPEC 15.1)
    waits.takeUpSignIns();
    const tools = await prepareRunTools(runtime, scope, this.#store);
    // a principal without a sign-in its catalog needs parks before the run's first model
    // request, when the store can park and the run holds no other wait (see the decisions)
    const signIns = scope.takeSignIns();
    if (
      signIns.length > 0 &&
      waits.canPark &&
      session.finalText === undefined &&
      waits.found.every((w) => w.kind === 'auth')
    )
      throw new RunParked(await waits.parkSignIns(signIns));
    if (session.finalText !== undefined) {
      const committed = await readCommittedAnswer(session.finalText, plan.output);
      return { ...committed, iterations: session.iterationsDone, usage: ZERO_USAGE };
    }
    const { pendingCalls, replaying } = await this.#sortInFlight(tools.catalog);
    const { sessionId, runId } = this.#ids;
    const context = await loopContext(runtime, plan.request, {
      sessionId,
      runId,
      signal: this.#controller.signal,
      emit: (event) => this.#emit(event),
      model: plan.model,
      modelName: plan.modelName,
      limits: plan.limits,
      tools,
      store: this.#store,
      iterationsDone: session.iterationsDone,
      scope,
      observer: this.#observer,
      output: plan.output,
      waits: this.#waits,
      pendingCalls,
      replaying,
      recordedStarts: session.recordedStarts,
      // nothing built or awaited at a step boundary unless steering may wait
      steer: (transcript) =>
        this.#log?.steeringMaybe === false ? undefined : this.#takeSteering(transcript),
      stage: (event) => {
        const log = this.#log;
        if (!log?.hold(event)) return undefined;
        // observed once its commit landed: a dropped event counts for nothing, as before
        return { landed: () => this.#observe(event), forget: () => log.drop(event) };
      },
      budget: this.#budget,
      callSignal: this.#calls?.signal,
      price: plan.price,
    });
    return runLoop(context, session.transcript);
  }

  /**
   * The calls a resumed run found in flight (`mcp.replay: 'idempotent'`, SPEC 15.5), decided
   * from the run's catalog: those of MCP tools annotated `idempotentHint` or `readOnlyHint`
   * stay with the calls to run (sent again, once); the others are repaired now, as
   * `TOOL_OUTCOME_UNKNOWN` results committed before any call runs. The replays that parked
   * on a wait before they were sent (`SessionRun.replayed`) are replays still.
   */
  async #sortInFlight(
    catalog: ToolCatalog,
  ): Promise<{ pendingCalls?: readonly ToolCallRequest[]; replaying?: ReadonlySet<string> }> {
    const session = this.#session!;
    const inFlight = session.inFlight;
    // replays that parked before they were sent stay replays, whatever the catalog says now
    const replayed = session.replayed;
    if (!inFlight || inFlight.size === 0)
      return {
        pendingCalls: session.pendingCalls,
        ...(replayed && replayed.size > 0 ? { replaying: replayed } : {}),
      };
    const calls = session.pendingCalls ?? [];
    const unknown = calls.filter(
      (c) => inFlight.has(c.callId) && !isReplayable(catalog.get(c.name)),
    );
    const replaying = new Set([
      ...calls.filter((c) => inFlight.has(c.callId) && !unknown.includes(c)).map((c) => c.callId),
      ...(replayed ?? []),
    ]);
    if (unknown.length > 0) {
      const repairs = unansweredCallResults(
        [{ role: 'assistant', content: unknown.map(toolCallPart) }],
        undefined,
      );
      await this.#store.update(this.#ids.sessionId, {
        ...UNCHANGED,
        appendMessages: repairs.map((r) => r.message),
      });
      session.transcript.push(...repairs.map((r) => r.message));
      for (const repaired of repairs) this.#emit(repairedCallEvent(this.#ids, repaired));
    }
    const pendingCalls = calls.filter((c) => !unknown.includes(c));
    return {
      ...(pendingCalls.length > 0 ? { pendingCalls } : {}),
      ...(replaying.size > 0 ? { replaying } : {}),
    };
  }

  /** Takes the steering waiting for the session, if its store takes steering (SPEC 15.2). */
  #takeSteering(transcript: ModelMessage[]): Promise<void> | undefined {
    const { sessionId, runId } = this.#ids;
    const target: SteeringTarget = {
      sessionId,
      runId,
      store: this.#store,
      emit: (event) => this.#emit(event),
      emitLogged: (event, seq) => {
        this.#observe(event);
        if (this.#log) this.#log.logged(event, seq);
        else this.#deliver({ ...event, seq });
      },
      log: () => this.#log,
    };
    return steeringDue(target) ? takeSteering(target, transcript) : undefined;
  }

  /** The run as its tool sources see it (closed when the run ends). */
  #openScope(limits: Limits, principal: string | undefined): RunScope {
    const runtime = this.#runtime;
    const queue = this.#queue;
    const budget = this.#budget;
    this.#scope = new RunScope({
      sessionId: this.#ids.sessionId,
      runId: this.#ids.runId,
      principal,
      // a budget that runs out cancels the calls in flight (and the runs they delegated to)
      signal: this.#calls?.signal ?? this.#controller.signal,
      limits,
      policy: runtime.policy,
      sink: {
        emit: (event) => this.#emit(event as AgentEvent),
        forward: (event) =>
          this.#log ? this.#log.forward(event as AgentEvent) : queue.push(event as AgentEvent),
        authorize: (request, signal) => runtime.authorize(request, signal),
        countOwnUsage: (usage) => runtime.usage.add(usage),
        ...(budget ? { countSpend: (usage: Usage) => budget.spendNow(usage) } : {}),
      },
    });
    budget?.serve(this.#scope);
    return this.#scope;
  }

  /**
   * A resume of a parked session whose waits are not all decided (or expired): reports
   * `session.parked` again and ends, having written nothing. A resume for another principal
   * than the session's is refused first (`PRINCIPAL_MISMATCH`): it learns nothing of the waits.
   */
  async #stillWaiting(plan: RunPlan): Promise<boolean> {
    const { sessionId } = this.#ids;
    const session = await this.#store.get(sessionId);
    if (session)
      assertSessionPrincipal(sessionId, session.principal, plan.request.principal, 'resume');
    if (session?.status !== 'parked') return false;
    const open = openWaits(
      await liveWaits(this.#store, await sessionWaits(this.#store, sessionId)),
      Date.now(),
    );
    if (open.length === 0) return false;
    this.#reportWaiting(open);
    return true;
  }

  /** `session.parked` for a resume that found waits still open: nothing was written. */
  #reportWaiting(waits: readonly Wait[]): undefined {
    const { sessionId, runId } = this.#ids;
    this.#emit({
      type: 'session.parked',
      timestamp: isoNow(),
      sessionId,
      runId,
      waits: waits.map(publicWait),
    });
    return undefined;
  }

  /** What ending the run needs of it (read when it ends). */
  #end(): RunEnd {
    return {
      sessionId: this.#ids.sessionId,
      runId: this.#ids.runId,
      runtime: this.#runtime,
      store: this.#store,
      signal: this.#controller.signal,
      claim: this.#claim!,
      session: this.#session,
      scope: this.#scope,
      log: this.#log,
      publish: (event) => this.#publish(event),
      observe: (event) => this.#observe(event),
    };
  }

  /** Reports `session.failed` with the error as a `MusterError`, and returns it (not logged). */
  #failed(err: unknown): MusterError {
    const { sessionId, runId } = this.#ids;
    const error = toMusterError(err, 'INTERNAL_ERROR', 'The run failed unexpectedly');
    this.#publish({ type: 'session.failed', timestamp: isoNow(), sessionId, runId, error });
    return error;
  }
}

/** A resume that found, under its lease, waits still open: it stops having written nothing. */
class StillWaiting {
  constructor(readonly waits: readonly Wait[]) {}
}

/** The transcript part of a call a resumed run found (to repair it like the others). */
function toolCallPart(call: ToolCallRequest): ToolCallPart {
  return { type: 'tool-call', callId: call.callId, name: call.name, arguments: call.arguments };
}
