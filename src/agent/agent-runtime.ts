import { MusterError, abortedError } from '../errors/index.js';
import { ToolPolicy } from '../policy/index.js';
import { MemorySessionStore } from '../session/index.js';
import type { SessionStore } from '../session/index.js';
import { HostToolExecutor } from '../tools/index.js';
import type { ExecutorEvent, ExecutorRunContext, ToolExecutor } from '../tools/index.js';
import type { AuthorizationDecision, AuthorizationRequest } from '../policy/index.js';
import { createMcpRuntime } from '../mcp/index.js';
import type { McpFacade, McpRuntime } from '../mcp/index.js';

type McpToolExecutorHandle = Pick<McpRuntime['executor'], 'finishRun'>;
import {
  ContextManager,
  ContextToolExecutor,
  DEFAULT_ARCHIVE_THRESHOLD_BYTES,
  MemoryArchiveStore,
} from '../context/index.js';
import type { ArchiveStore } from '../context/index.js';
import { callIsolated } from '../util/index.js';
import { addUsage, ZERO_USAGE } from '../model/index.js';
import type { Usage } from '../model/index.js';
import type { AgentOptions } from './agent-options.js';
import { agentSampler } from './agent-sampler.js';
import type { AgentScope } from './agent-scope.js';
import type { AgentEvent } from './events.js';
import { IdleTracker } from './idle-tracker.js';
import { outsideRunContext } from './outside-run-context.js';
import { DEFAULT_LIMITS, resolveLimits } from './limits.js';
import { AgentTracing } from './agent-tracing.js';
import type { Limits } from './limits.js';
import { UsageTally } from './usage-tally.js';

/**
 * The root agent's runtime, which its children borrow: the tool sources (host tools, the
 * host's executor, MCP), the archive, the session store, the policy, and the tracking of
 * everything in flight (runs, its children's included, registry changes, connects outside
 * runs) that `awaitIdle()`, `REGISTRY_BUSY` and `close()` wait for.
 */
export class AgentRuntime implements AgentScope {
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
  readonly tracing: AgentTracing | undefined;
  /** `observability.agentName`: the name of this agent's runs in traces. */
  readonly agentName: string | undefined;
  readonly #mcpExecutor: McpToolExecutorHandle;
  /** Sessions with a run in this process, each with the promise that settles when it ends. */
  readonly running = new Map<string, Promise<void>>();
  /**
   * Usage of sampling requests answered by the agent's model, by run: an entry exists only
   * from `openRunUsage` to `takeRunUsage`, so nothing is kept for a run that has ended.
   */
  readonly #runUsage = new Map<string, { usage: Usage; tally: UsageTally }>();
  /** `agent.usage`: every run of this agent and of its children. */
  readonly usage = new UsageTally();
  readonly #closeController = new AbortController();
  readonly #idle = new IdleTracker(() => this.running.size === 0);
  #initialized: Promise<void> | undefined;
  #ready = false;
  #closing: Promise<void> | undefined;

  constructor(options: AgentOptions) {
    this.options = options;
    this.policy = new ToolPolicy(options.policy ?? {});
    this.limits = resolveLimits(DEFAULT_LIMITS, options.limits, 'limits');
    this.store = options.sessionStore ?? new MemorySessionStore();
    // a store that keeps an archive keeps it with the sessions (paging survives restarts)
    this.archive =
      this.store.archive ??
      options.context?.archiveStore ??
      new MemoryArchiveStore(
        options.context?.maxArchiveBytesPerSession !== undefined
          ? { maxBytesPerSession: options.context.maxArchiveBytesPerSession }
          : {},
      );
    this.contextTool = new ContextToolExecutor({ store: this.archive });
    this.context = new ContextManager(options.context);
    const executors: ToolExecutor[] = [];
    if (options.tools && options.tools.length > 0)
      executors.push(new HostToolExecutor(options.tools));
    if (options.toolExecutor) executors.push(options.toolExecutor);
    const mcp = createMcpRuntime(
      {
        mcpServers: options.mcpServers,
        mcp: options.mcp,
        workdir: options.workdir,
        isVisible: (subject) => this.policy.isVisible(subject),
        hooks: {
          ...(options.hooks?.onElicitation ? { onElicitation: options.hooks.onElicitation } : {}),
          ...(options.hooks?.onElicitationResult
            ? { onElicitationResult: options.hooks.onElicitationResult }
            : {}),
        },
        agentSampler: agentSampler({
          ...(options.model ? { model: options.model } : {}),
          ...(options.modelName ? { modelName: options.modelName } : {}),
          addRunUsage: (runId, usage) => this.addRunUsage(runId, usage, true),
        }),
      },
      {
        exclusive: (operation, fn) => {
          try {
            this.assertIdle(operation);
          } catch (err) {
            return Promise.reject(err);
          }
          return this.track(fn());
        },
        contextFor: (operation) => this.outsideRunContext(operation, (ev) => this.background(ev)),
      },
      (ev) => this.background(ev),
    );
    executors.push(mcp.executor);
    if (mcp.resourceTools) executors.push(mcp.resourceTools);
    this.mcp = mcp.facade;
    this.tracing = AgentTracing.of(
      options.observability,
      (server) => mcp.facade.list().find((s) => s.name === server)?.type,
      (err) => this.reportError(err),
    );
    this.agentName = options.observability?.agentName;
    this.#mcpExecutor = mcp.executor;
    this.archiveThresholdBytes =
      mcp.options.archiveThresholdBytes ?? DEFAULT_ARCHIVE_THRESHOLD_BYTES;
    this.executors = executors;
  }

  /** Takes the sampling usage recorded for a run (undefined when there was none). */
  takeRunUsage(runId: string): Usage | undefined {
    const usage = this.#runUsage.get(runId)?.usage;
    this.#runUsage.delete(runId);
    return usage && usage.totalTokens + usage.inputTokens + usage.outputTokens > 0
      ? usage
      : undefined;
  }

  /**
   * Starts counting sampling (and delegated) usage for a run of this agent or of a child,
   * whose `tally` the sampling counts toward; pair it with `takeRunUsage` in a `finally`.
   */
  openRunUsage(runId: string, tally: UsageTally = this.usage): void {
    this.#runUsage.set(runId, { usage: ZERO_USAGE, tally });
  }

  /** Adds usage to an open run; `own` usage (sampling) also counts toward the agent's tally. */
  addRunUsage(runId: string, usage: Usage, own: boolean): void {
    const entry = this.#runUsage.get(runId);
    if (!entry) return;
    entry.usage = addUsage(entry.usage, usage);
    if (own) entry.tally.add(usage);
  }

  /** Authorizes with the root's policy (connections, sampling and tools alike). */
  authorize(request: AuthorizationRequest, signal: AbortSignal): Promise<AuthorizationDecision> {
    return this.policy.authorize(request, { signal, onObserverError: (e) => this.reportError(e) });
  }

  /** Forgets what the MCP side kept about a run that ended (its attribution of server requests). */
  finishRun(runId: string): void {
    this.#mcpExecutor.finishRun(runId);
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
      this.#closeController.abort(abortedError('The agent', new Error('the agent was closed')));
      await Promise.allSettled([...this.running.values(), ...this.#idle.activities]);
      await Promise.allSettled(this.executors.map((e) => e.close?.()));
    })();
    return this.#closing;
  }
}
