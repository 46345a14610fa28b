import { setMaxListeners } from 'node:events';
import { MusterError, abortedError, toMusterError } from '../errors/index.js';
import type { McpFacade } from '../mcp/index.js';
import { addUsage } from '../model/index.js';
import type { Usage } from '../model/index.js';
import type { Tool } from '../tools/index.js';
import { callIsolated, followAbort, isoNow, newId, raceAbort } from '../util/index.js';
import { ZERO_USAGE } from '../model/index.js';
import type { AgentOptions, RunRequest, SendResult } from './agent-options.js';
import { agentAsTool } from './agent-as-tool.js';
import type { AgentToolOptions } from './agent-as-tool.js';
import { AgentRuntime } from './agent-runtime.js';
import type { AgentScope } from './agent-scope.js';
import { agentSessions } from './agent-sessions.js';
import type { AgentSessions } from './agent-sessions.js';
import type { EventQueue } from './event-queue.js';
import { runEvents } from './run-events.js';
import { sendResult } from './send-result.js';
import type { AgentEvent } from './events.js';
import { resolveLimits } from './limits.js';
import { executorContext, loopContext, runModel } from './loop-context.js';
import { runLoop } from './run-loop.js';
import type { RunTrace } from './run-trace.js';
import { prepareRunTools } from './run-setup.js';
import { ChildRuntime } from './child-runtime.js';
import { validateChildOptions } from './child-options.js';
import type { ChildAgentOptions } from './child-options.js';
import { claimSession } from './session-claim.js';
import type { SessionClaim } from './session-claim.js';
import { openSessionRun, resumeSessionRun } from './session-run.js';
import type { SessionRun } from './session-run.js';
import { guardedStore } from './store-guard.js';
import { validateAgentOptions, validateRunRequest } from './validate-options.js';

/**
 * The key under which `child()` hands a child agent its runtime: a child is an `Agent` over a
 * runtime of its own. Not exported, so no caller's options can carry one.
 */
const ADOPT = Symbol('muster.agent.adopt');

/** The options `child()` constructs a child agent with. */
interface AdoptingOptions extends AgentOptions {
  readonly [ADOPT]: AgentScope;
}

/**
 * The agent: a model, tool sources, a policy and a session store, running the model/tool loop.
 * Constructing one does no I/O.
 *
 * @example
 * ```ts
 * const agent = createAgent({ model, tools: [add], policy: { allow: ['add'] } });
 * for await (const ev of agent.run({ input: 'What is 2 + 3?' })) console.log(ev.type);
 * await agent.close();
 * ```
 */
export class Agent {
  readonly #runtime: AgentScope;
  /** Read access to sessions. */
  readonly sessions: AgentSessions;
  /** The MCP server registry (SPEC section 7). */
  readonly mcp: McpFacade;

  constructor(options: AgentOptions = {}) {
    const runtime =
      (options as Partial<AdoptingOptions> | null | undefined)?.[ADOPT] ??
      new AgentRuntime(validateAgentOptions(options));
    this.#runtime = runtime;
    this.mcp = runtime.mcp;
    this.sessions = agentSessions(runtime);
  }

  /**
   * Runs the agent once. Yields events as they happen; on failure yields `session.failed`
   * and then throws the same error. Breaking out of the loop aborts the run.
   */
  run(request: RunRequest): AsyncIterable<AgentEvent> {
    return this.#runEvents(request);
  }

  /**
   * Continues a session whose run died (its process crashed or lost its lease; status
   * `running`), on any replica sharing the store: calls that were in flight are reported to
   * the model as `TOOL_OUTCOME_UNKNOWN` (never replayed) and the run goes on. Yields events
   * with the same failure rules as `run()`; fails with `SESSION_ALREADY_RUNNING` while the
   * session's lease is live.
   */
  resume(
    sessionId: string,
    options: Omit<RunRequest, 'input' | 'inputContent' | 'sessionId'> = {},
  ): AsyncIterable<AgentEvent> {
    return this.#runEvents({ ...options, sessionId }, true);
  }

  /** Runs to the end and returns the final text with every event. */
  async send(
    text: string,
    options: Omit<RunRequest, 'input' | 'inputContent'> = {},
  ): Promise<SendResult> {
    const events: AgentEvent[] = [];
    for await (const ev of this.run({ ...options, input: text })) events.push(ev);
    return sendResult(events);
  }

  /** Prepares every tool source now (the first run does it otherwise). Returns its events. */
  async initialize(): Promise<AgentEvent[]> {
    const runtime = this.#runtime;
    runtime.assertOpen();
    return runtime.track(
      (async () => {
        const events: AgentEvent[] = [];
        await runtime.ensureInitialized();
        await runtime.tracing?.prepare();
        const ctx = runtime.outsideRunContext('initialize', (ev) => {
          events.push(ev);
          runtime.background(ev);
        });
        for (const e of runtime.executors) if (e.prepareRun) await e.prepareRun(ctx);
        return events;
      })(),
    );
  }

  /**
   * A narrower agent borrowing this one's tool sources (no new process, connection or
   * discovery): its policy is asked before this one's, it sees at most what this one shows,
   * and closing it leaves this agent's connections open (SPEC section 3).
   */
  child(options: ChildAgentOptions = {}): Agent {
    const adopting: AdoptingOptions = {
      [ADOPT]: new ChildRuntime(this.#runtime, validateChildOptions(options)),
    };
    return new Agent(adopting);
  }

  /**
   * This agent as a tool another agent's model can call: a delegated run per call, named in
   * traces after the tool when the agent has no name of its own.
   */
  asTool(options: AgentToolOptions): Tool {
    const name = (options as Partial<AgentToolOptions> | undefined)?.name;
    return agentAsTool({ run: (request) => this.#runEvents(request, false, name) }, options);
  }

  /** Usage of every run of this agent and of its children so far (each run counted once). */
  get usage(): Usage {
    return this.#runtime.usage.total;
  }

  /** Resolves when no run, registry change or connect outside a run is in flight. */
  awaitIdle(): Promise<void> {
    return this.#runtime.awaitIdle();
  }

  /** Cancels every run and releases every tool source. Idempotent. */
  close(): Promise<void> {
    return this.#runtime.close();
  }

  #runEvents(request: RunRequest, resume = false, toolName?: string): AsyncIterable<AgentEvent> {
    const sessionId =
      typeof request?.sessionId === 'string' && request.sessionId !== ''
        ? request.sessionId
        : newId('session');
    const ids = { sessionId, runId: newId('run'), toolName };
    return runEvents((queue, ctl) => this.#execute(request, ids, queue, ctl, resume));
  }

  async #execute(
    raw: RunRequest,
    { sessionId, runId, toolName }: { sessionId: string; runId: string; toolName?: string },
    queue: EventQueue<AgentEvent>,
    controller: AbortController,
    resume: boolean,
  ): Promise<MusterError | undefined> {
    const runtime = this.#runtime;
    const observability = runtime.options.observability;
    let trace: RunTrace | undefined;
    const emit = (event: AgentEvent) => {
      if (event.type === 'model.completed' && event.runId === runId) runtime.usage.add(event.usage);
      trace?.onEvent(event);
      queue.push(event);
      const onEvent = observability?.onEvent;
      if (onEvent) callIsolated(() => onEvent(event), observability?.onError);
    };
    const fail = (err: unknown): MusterError => {
      const error = toMusterError(err, 'INTERNAL_ERROR', 'The run failed unexpectedly');
      emit({ type: 'session.failed', timestamp: isoNow(), sessionId, runId, error });
      return error;
    };

    let claim: SessionClaim;
    try {
      runtime.assertOpen();
      claim = claimSession(runtime, sessionId, (reason) => controller.abort(reason));
    } catch (err) {
      return fail(err);
    }
    // the run's signal is its own controller's, which follows the agent's close and the
    // caller's signal (no AbortSignal.any per run: it costs a signal and weak references)
    const signal = controller.signal;
    const unfollow = followAbort(controller, [
      runtime.closeSignal,
      raw?.signal instanceof AbortSignal ? raw.signal : undefined,
    ]);
    // one run's signal fans out to every call in flight (and the MCP client adds its own)
    setMaxListeners(0, signal);
    const store = guardedStore(runtime.store, () => claim.writeOptions());
    let session: SessionRun | undefined;
    runtime.openRunUsage(runId);
    try {
      const request = validateRunRequest(resume ? { ...raw, input: '' } : raw);
      const limits = resolveLimits(runtime.limits, request.limits, 'run limits');
      const { model, modelName } = runModel(runtime, request);
      // decided synchronously: an untraced run builds nothing and awaits nothing here
      if (runtime.tracing?.traces())
        trace = await runtime.tracing.startRun(
          {
            sessionId,
            runId,
            modelName,
            provider: model.provider,
            agentName: runtime.agentName ?? toolName,
            input: resume ? undefined : request.input,
          },
          request.traceContext,
        );
      await claim.lease(runtime.store, runId);
      // the last check before the session is touched: an aborted run writes nothing
      if (!runtime.initialized)
        await raceAbort(runtime.ensureInitialized(), signal, 'Initialization');
      else if (signal.aborted) throw abortedError('Initialization', signal.reason);
      session = resume
        ? await resumeSessionRun(store, sessionId)
        : await openSessionRun(store, sessionId, request);
      emit({
        type: 'session.started',
        timestamp: session.startedAt,
        sessionId,
        runId,
        continued: session.continued,
        modelName,
      });
      const run = { sessionId, runId, signal, emit };
      const link = {
        forward: (ev: object) => queue.push(ev as AgentEvent),
        addUsage: (usage: Usage) => runtime.addRunUsage(runId, usage, false),
      };
      const tools = await prepareRunTools(runtime, executorContext(runtime, run), store);
      const result =
        session.finalText !== undefined
          ? { content: session.finalText, iterations: session.iterationsDone, usage: ZERO_USAGE }
          : await runLoop(
              await loopContext(runtime, request, {
                ...run,
                model,
                modelName,
                limits,
                tools,
                store,
                iterationsDone: session.iterationsDone,
                link,
                ...(trace ? { trace } : {}),
              }),
              session.transcript,
            );
      const sampled = runtime.takeRunUsage(runId);
      if (sampled) await store.update(sessionId, { addUsage: sampled });
      await session.complete(result.content);
      emit({
        type: 'session.completed',
        timestamp: isoNow(),
        sessionId,
        runId,
        content: result.content,
        iterations: result.iterations,
        usage: addUsage(result.usage, sampled),
      });
      return undefined;
    } catch (err) {
      // a lost lease ends the run with SESSION_ALREADY_RUNNING, whatever it was doing then
      const error = claim.lostReason
        ? claim.lostReason
        : signal.aborted && !(MusterError.isInstance(err) && err.code === 'ABORTED')
          ? abortedError('The run', signal.reason)
          : err;
      const failure = fail(error);
      // the run has failed already; a store that cannot record it is reported, not hidden
      const sampled = runtime.takeRunUsage(runId);
      if (session && sampled)
        await store.update(sessionId, { addUsage: sampled }).catch((e) => runtime.reportError(e));
      if (session) await session.fail(failure).catch((e: unknown) => runtime.reportError(e));
      return failure;
    } finally {
      unfollow();
      runtime.takeRunUsage(runId);
      runtime.finishRun(runId);
      await claim.release((e) => runtime.reportError(e));
    }
  }
}

/** Creates an agent; the same as `new Agent(options)`. */
export function createAgent(options: AgentOptions = {}): Agent {
  return new Agent(options);
}
