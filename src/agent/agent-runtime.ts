import { MusterError, abortedError, agentClosedError } from '../errors/index.js';
import type { ToolPolicy } from '../policy/index.js';
import type { SessionStore } from '../session/index.js';
import type { ExecutorEvent, ExecutorRunContext, ToolExecutor } from '../tools/index.js';
import type { AuthorizationDecision, AuthorizationRequest } from '../policy/index.js';
import type { McpFacade } from '../mcp/index.js';
import type { ContextManager, ContextToolExecutor, ArchiveStore } from '../context/index.js';
import { callIsolated } from '../util/index.js';
import type { AgentOptions } from './agent-options.js';
import type { AgentScope } from './agent-scope.js';
import type { AgentEvent } from './events.js';
import { IdleTracker } from './idle-tracker.js';
import { outsideRunContext } from './outside-run-context.js';
import type { RunTracing } from './run-observer.js';
import type { Limits } from './limits.js';
import { buildRuntimeParts } from './runtime-parts.js';
import type { RuntimeLifecycle } from './runtime-parts.js';
import { UsageTally } from './usage-tally.js';

/**
 * The root agent's runtime, which its children borrow. Its parts (tool sources, archive,
 * session store, policy, tracing) are built by `buildRuntimeParts`; this class is their
 * lifecycle: the tracking of everything in flight (runs, its children's included, registry
 * changes, connects outside runs) that `awaitIdle()`, `REGISTRY_BUSY` and `close()` wait for,
 * initialization once, and closing.
 */
export class AgentRuntime implements AgentScope, RuntimeLifecycle {
  readonly options: AgentOptions;
  readonly policy: ToolPolicy;
  readonly limits: Limits;
  readonly store: SessionStore;
  readonly archive: ArchiveStore;
  readonly archiveThresholdBytes: number;
  /** Shapes every model request to the `context` limits. */
  readonly context: ContextManager;
  /** The built-in `context` tool, offered in runs whose catalog has archived sources. */
  readonly contextTool: ContextToolExecutor;
  readonly executors: readonly ToolExecutor[];
  readonly mcp: McpFacade;
  /** Spans of runs and connects (SPEC 12b); absent when `observability.tracing` is false. */
  readonly tracing: RunTracing | undefined;
  /** `observability.agentName`: the name of this agent's runs in traces. */
  readonly agentName: string | undefined;
  /** The model name that answers sampling requests (`mcp.handlers.sampling: 'agent'`). */
  readonly samplingModelName: string | undefined;
  /** Sessions with a run in this process, each with the promise that settles when it ends. */
  readonly running = new Map<string, Promise<void>>();
  /** `agent.usage`: every run of this agent and of its children. */
  readonly usage = new UsageTally();
  readonly #closeController = new AbortController();
  readonly #idle = new IdleTracker(() => this.running.size === 0);
  #initialized: Promise<void> | undefined;
  #ready = false;
  #closing: Promise<void> | undefined;

  constructor(options: AgentOptions) {
    this.options = options;
    const parts = buildRuntimeParts(options, this);
    this.policy = parts.policy;
    this.limits = parts.limits;
    this.store = parts.store;
    this.archive = parts.archive;
    this.archiveThresholdBytes = parts.archiveThresholdBytes;
    this.context = parts.context;
    this.contextTool = parts.contextTool;
    this.executors = parts.executors;
    this.mcp = parts.mcp;
    this.tracing = parts.tracing;
    this.agentName = parts.agentName;
    this.samplingModelName =
      options.mcp?.handlers?.sampling === 'agent'
        ? (options.modelName ?? options.model?.defaultModelName)
        : undefined;
  }

  /** Runs a registry change once nothing is in flight (`REGISTRY_BUSY` otherwise), tracked. */
  exclusive<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      this.assertIdle(operation);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.track(fn());
  }

  /** Authorizes with the root's policy (connections, sampling and tools alike). */
  authorize(request: AuthorizationRequest, signal: AbortSignal): Promise<AuthorizationDecision> {
    return this.policy.authorize(request, { signal, onObserverError: (e) => this.reportError(e) });
  }

  /** Aborted when the agent closes. */
  get closeSignal(): AbortSignal {
    return this.#closeController.signal;
  }

  /** Keeps `awaitIdle()` and `close()` waiting for work outside runs (initialize, registry changes). */
  track<T>(work: Promise<T>): Promise<T> {
    return this.#idle.track(work);
  }

  /** Marks a session as running here; the returned function ends it. */
  startRun(sessionId: string): () => void {
    let settle!: () => void;
    this.running.set(sessionId, new Promise<void>((r) => (settle = r)));
    return () => {
      this.running.delete(sessionId);
      settle();
      this.#idle.wake();
    };
  }

  /** Resolves when no run, registry change or connect outside a run is in flight. */
  awaitIdle(): Promise<void> {
    return this.#idle.wait();
  }

  /** True once every tool source has initialized. */
  get initialized(): boolean {
    return this.#ready;
  }

  /** Initializes every tool source once (again after a failure). */
  ensureInitialized(): Promise<void> {
    if (this.#initialized) return this.#initialized;
    const signal = this.closeSignal;
    const initializing = Promise.all(this.executors.map((e) => e.initialize?.({ signal }))).then(
      () => {
        this.#ready = true;
      },
    );
    initializing.catch(() => {
      if (this.#initialized === initializing) this.#initialized = undefined;
    });
    this.#initialized = initializing;
    return initializing;
  }

  /** Throws `ABORTED` once the agent is closed. */
  assertOpen(): void {
    if (this.closeSignal.aborted)
      throw abortedError('The agent', new Error('the agent is closed; create a new one'));
  }

  /** Throws `REGISTRY_BUSY` unless nothing is in flight. */
  assertIdle(operation: string): void {
    this.assertOpen();
    if (!this.#idle.idle()) {
      throw new MusterError(
        'REGISTRY_BUSY',
        `agent.mcp.${operation}() needs an idle agent, but a run (of this agent or of a child) is in progress: call it after awaitIdle(), never from a hook.`,
      );
    }
  }

  /** Observers see events that happen outside any run (list changes, disconnects, registry changes). */
  background(event: AgentEvent | ExecutorEvent): void {
    const onEvent = this.options.observability?.onEvent;
    const named = event.runId === '' ? { ...event, runId: 'background' } : event;
    this.tracing?.background(named as AgentEvent);
    if (onEvent)
      callIsolated(() => onEvent(named as AgentEvent), this.options.observability?.onError);
  }

  /** Hands a failure that must not change a run (an observer's, a late store write's) to `onError`. */
  reportError(err: unknown): void {
    const onError = this.options.observability?.onError;
    if (onError) callIsolated(() => onError(err), undefined);
  }

  /** A context for work outside any run: authorization through the policy, events to `emit`. */
  outsideRunContext(operation: string, emit: (ev: AgentEvent) => void): ExecutorRunContext {
    return outsideRunContext(this, operation, emit);
  }

  /** Cancels every run and releases every tool source. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closeController.abort(agentClosedError('The agent'));
      await Promise.allSettled([...this.running.values(), ...this.#idle.activities]);
      await Promise.allSettled(this.executors.map((e) => e.close?.()));
    })();
    return this.#closing;
  }
}
