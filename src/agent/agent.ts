import { setMaxListeners } from 'node:events';
import { MusterError, SessionError, abortedError, toMusterError } from '../errors/index.js';
import type { ModelMessage, UserContentPart, UserMessage } from '../model/index.js';
import { ToolPolicy } from '../policy/index.js';
import type { AfterToolHook, BeforeToolHook } from '../policy/index.js';
import { MemorySessionStore } from '../session/index.js';
import type { SessionLease, SessionState, SessionStore, SessionSummary } from '../session/index.js';
import { HostToolExecutor, ToolCatalog } from '../tools/index.js';
import type { ExecutorEvent, ExecutorRunContext, ToolExecutor } from '../tools/index.js';
import { createMcpRuntime } from '../mcp/index.js';
import type { McpFacade } from '../mcp/index.js';
import {
  archiveToolResult,
  CONTEXT_TOOL_NAME,
  ContextToolExecutor,
  DEFAULT_ARCHIVE_THRESHOLD_BYTES,
  MemoryArchiveStore,
} from '../context/index.js';
import type { ArchiveStore } from '../context/index.js';
import type { NormalizedToolResult, ToolCallEnvironment } from '../tools/index.js';
import { callIsolated, newId, raceAbort } from '../util/index.js';
import type { AgentOptions, RunRequest, SendResult } from './agent-options.js';
import { EventQueue } from './event-queue.js';
import type { AgentEvent } from './events.js';
import { DEFAULT_LIMITS, resolveLimits } from './limits.js';
import type { Limits } from './limits.js';
import { runLoop, withoutMedia } from './run-loop.js';
import { unansweredCallResults } from './transcript-repair.js';
import { validateAgentOptions, validateRunRequest } from './validate-options.js';

const LEASE_TTL_MS = 5 * 60_000;

/** Read access to an agent's sessions. */
export interface AgentSessions {
  get(sessionId: string): Promise<SessionState | undefined>;
  list(): Promise<readonly SessionSummary[]>;
  /** Deletes a session; fails with `SESSION_ALREADY_RUNNING` while a run uses it. */
  delete(sessionId: string): Promise<void>;
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
  readonly #options: AgentOptions;
  readonly #policy: ToolPolicy;
  readonly #limits: Limits;
  readonly #store: SessionStore;
  readonly #executors: readonly ToolExecutor[];
  readonly #beforeTool: readonly BeforeToolHook[];
  readonly #afterTool: readonly AfterToolHook[];
  readonly #closeController = new AbortController();
  readonly #running = new Map<string, Promise<unknown>>();
  readonly #activities = new Set<Promise<unknown>>();
  #idleWaiters: (() => void)[] = [];
  #initialized: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  /** Read access to sessions. */
  readonly sessions: AgentSessions;
  /** The MCP server registry (SPEC section 7). */
  readonly mcp: McpFacade;
  readonly #archive: ArchiveStore = new MemoryArchiveStore();
  readonly #contextTool = new ContextToolExecutor({ store: this.#archive });
  #archiveThreshold = DEFAULT_ARCHIVE_THRESHOLD_BYTES;

  constructor(options: AgentOptions = {}) {
    this.#options = validateAgentOptions(options);
    this.#policy = new ToolPolicy(options.policy ?? {});
    this.#limits = resolveLimits(DEFAULT_LIMITS, options.limits, 'limits');
    this.#store = options.sessionStore ?? new MemorySessionStore();
    const executors: ToolExecutor[] = [];
    if (options.tools && options.tools.length > 0)
      executors.push(new HostToolExecutor(options.tools));
    if (options.toolExecutor) executors.push(options.toolExecutor);
    const mcp = createMcpRuntime(
      options,
      {
        exclusive: (operation, fn) => {
          try {
            this.#assertIdle(operation);
          } catch (err) {
            return Promise.reject(err);
          }
          return this.#track(fn());
        },
        contextFor: (operation) => this.#outsideRunContext(operation, (ev) => this.#background(ev)),
      },
      (ev) => this.#background(ev),
    );
    executors.push(mcp.executor);
    this.#archiveThreshold = mcp.options.archiveThresholdBytes ?? DEFAULT_ARCHIVE_THRESHOLD_BYTES;
    this.mcp = mcp.facade;
    this.#executors = executors;
    this.#beforeTool = toList(options.hooks?.beforeTool);
    this.#afterTool = toList(options.hooks?.afterTool);
    this.sessions = {
      get: (id) => this.#store.get(id),
      list: async () => (this.#store.list ? this.#store.list() : []),
      delete: async (id) => {
        if (this.#running.has(id)) {
          throw new SessionError(
            'SESSION_ALREADY_RUNNING',
            `Session '${id}' is running: wait for it (awaitIdle) before deleting it.`,
            { sessionId: id },
          );
        }
        await this.#store.delete(id);
        await this.#archive.deleteSession?.(id);
      },
    };
  }

  /**
   * Runs the agent once. Yields events as they happen; on failure yields `session.failed`
   * and then throws the same error. Breaking out of the loop aborts the run.
   */
  run(request: RunRequest): AsyncIterable<AgentEvent> {
    return this.#runEvents(request);
  }

  /** Runs to the end and returns the final text with every event. */
  async send(
    text: string,
    options: Omit<RunRequest, 'input' | 'inputContent'> = {},
  ): Promise<SendResult> {
    const events: AgentEvent[] = [];
    for await (const ev of this.run({ ...options, input: text })) events.push(ev);
    const done = events.find((e) => e.type === 'session.completed');
    const started = events.find((e) => e.type === 'session.started');
    return {
      text: done?.type === 'session.completed' ? done.content : '',
      sessionId: started?.sessionId ?? '',
      usage:
        done?.type === 'session.completed'
          ? done.usage
          : { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      events,
    };
  }

  /** Prepares every tool source now (the first run does it otherwise). Returns its events. */
  async initialize(): Promise<AgentEvent[]> {
    this.#assertOpen();
    return this.#track(
      (async () => {
        const events: AgentEvent[] = [];
        await this.#ensureInitialized();
        const ctx = this.#outsideRunContext('initialize', (ev) => {
          events.push(ev);
          this.#background(ev);
        });
        for (const e of this.#executors) if (e.prepareRun) await e.prepareRun(ctx);
        return events;
      })(),
    );
  }

  /** Keeps `close()` waiting for work outside runs (initialize, registry changes). */
  #track<T>(work: Promise<T>): Promise<T> {
    this.#activities.add(work);
    const done = () => this.#activities.delete(work);
    work.then(done, done);
    return work;
  }

  /** Resolves when no run is in progress. */
  awaitIdle(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Cancels every run and releases every tool source. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closeController.abort(abortedError('The agent', new Error('the agent was closed')));
      await Promise.allSettled([...this.#running.values(), ...this.#activities]);
      await Promise.allSettled(this.#executors.map((e) => e.close?.()));
    })();
    return this.#closing;
  }

  async *#runEvents(request: RunRequest): AsyncGenerator<AgentEvent> {
    const runId = newId('run');
    const queue = new EventQueue<AgentEvent>();
    const controller = new AbortController();
    const sessionId =
      typeof request?.sessionId === 'string' && request.sessionId !== ''
        ? request.sessionId
        : newId('session');
    const task = this.#execute(request, sessionId, runId, queue, controller).finally(() =>
      queue.close(),
    );
    let drained = false;
    try {
      for await (const ev of queue.drain()) yield ev;
      drained = true;
    } finally {
      if (!drained)
        controller.abort(abortedError('The run', new Error('the consumer stopped iterating')));
      await task;
    }
    const error = await task;
    if (error) throw error;
  }

  async #execute(
    raw: RunRequest,
    sessionId: string,
    runId: string,
    queue: EventQueue<AgentEvent>,
    controller: AbortController,
  ): Promise<MusterError | undefined> {
    const emit = (event: AgentEvent) => {
      queue.push(event);
      const onEvent = this.#options.observability?.onEvent;
      if (onEvent) callIsolated(() => onEvent(event), this.#options.observability?.onError);
    };
    const onObserverError = (err: unknown) => {
      const onError = this.#options.observability?.onError;
      if (onError) callIsolated(() => onError(err), undefined);
    };
    const fail = (err: unknown): MusterError => {
      const error = toMusterError(err, 'MODEL_REQUEST_FAILED', 'The run failed');
      emit({
        type: 'session.failed',
        timestamp: new Date().toISOString(),
        sessionId,
        runId,
        error,
      });
      return error;
    };

    if (this.#closeController.signal.aborted)
      return fail(abortedError('The agent', new Error('the agent is closed; create a new one')));
    if (this.#running.has(sessionId)) {
      return fail(
        new SessionError(
          'SESSION_ALREADY_RUNNING',
          `Session '${sessionId}' already has a run in progress: wait for it or use another session.`,
          { sessionId },
        ),
      );
    }
    let settle!: () => void;
    this.#running.set(sessionId, new Promise<void>((r) => (settle = r)));
    const signals = [controller.signal, this.#closeController.signal];
    if (raw?.signal instanceof AbortSignal) signals.push(raw.signal);
    const signal = AbortSignal.any(signals);
    // one run's signal fans out to every call in flight (and the MCP client adds its own)
    setMaxListeners(0, signal);
    let lease: SessionLease | undefined;
    let started = false;
    try {
      const request = validateRunRequest(raw);
      const limits = resolveLimits(this.#limits, request.limits, 'run limits');
      const model = this.#options.model;
      if (!model)
        throw new MusterError(
          'INVALID_CONFIGURATION',
          'This agent has no model: pass createAgent({ model }) to run it.',
        );
      const modelName = request.modelName ?? this.#options.modelName ?? model.defaultModelName;
      if (!modelName)
        throw new MusterError(
          'INVALID_CONFIGURATION',
          'No model name: set createAgent({ modelName }) or run({ modelName }).',
        );
      if (this.#store.acquire) {
        lease = await this.#store.acquire(sessionId, runId, LEASE_TTL_MS);
        if (!lease)
          throw new SessionError(
            'SESSION_ALREADY_RUNNING',
            `Session '${sessionId}' is running elsewhere: wait for it or use another session.`,
            { sessionId },
          );
      }
      await raceAbort(this.#ensureInitialized(), signal, 'Initialization');
      const existing = await this.#store.get(sessionId);
      const now = new Date().toISOString();
      if (existing) {
        await this.#store.update(sessionId, { status: 'running', error: null });
      } else {
        await this.#store.create({
          id: sessionId,
          status: 'running',
          messages: [],
          iteration: 0,
          createdAt: now,
          updatedAt: now,
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          archiveRefs: [],
        });
      }
      started = true;
      emit({
        type: 'session.started',
        timestamp: now,
        sessionId,
        runId,
        continued: existing !== undefined,
        modelName,
      });
      const runContext: ExecutorRunContext = {
        sessionId,
        runId,
        signal,
        emit: (ev: ExecutorEvent) => emit({ ...ev, sessionId, runId } as AgentEvent),
        authorize: (req) => this.#policy.authorize(req, { signal, onObserverError }),
      };
      for (const e of this.#executors) if (e.prepareRun) await e.prepareRun(runContext);
      // Archiving (and the `context` tool that reads archived results) is on while an MCP server is connected.
      const archiving = this.mcp.list().some((server) => server.status === 'connected');
      const executors = archiving ? [...this.#executors, this.#contextTool] : this.#executors;
      const catalog = await ToolCatalog.build(executors, (e) =>
        this.#policy.isVisible({
          kind: 'tool',
          name: e.name,
          ...(e.info.server !== undefined ? { server: e.info.server } : {}),
          ...(e.info.originalName !== undefined ? { originalName: e.info.originalName } : {}),
        }),
      );
      const user = userMessage(request);
      const repairs = unansweredCallResults(existing?.messages ?? []);
      await this.#store.update(sessionId, { appendMessages: [...repairs, withoutMedia(user)] });
      const transcript: ModelMessage[] = [...(existing?.messages ?? []), ...repairs, user];
      const system = request.system ?? this.#options.system;
      const result = await runLoop(
        {
          sessionId,
          runId,
          model,
          modelName,
          system,
          stream: request.stream ?? true,
          reasoningEffort: request.reasoningEffort,
          limits,
          catalog,
          policy: this.#policy,
          beforeTool: this.#beforeTool,
          afterTool: this.#afterTool,
          store: this.#store,
          signal,
          emit,
          onObserverError,
          ...(archiving ? { finishResult: this.#archiver(sessionId) } : {}),
        },
        transcript,
      );
      await this.#store.update(sessionId, { status: 'completed', finalContent: result.content });
      emit({
        type: 'session.completed',
        timestamp: new Date().toISOString(),
        sessionId,
        runId,
        content: result.content,
        iterations: result.iterations,
        usage: result.usage,
      });
      return undefined;
    } catch (err) {
      const error =
        signal.aborted && !(MusterError.isInstance(err) && err.code === 'ABORTED')
          ? abortedError('The run', signal.reason)
          : err;
      const failure = fail(error);
      if (started) {
        await this.#store
          .update(sessionId, {
            status: 'failed',
            error: { code: failure.code, message: failure.message },
          })
          .catch(() => undefined);
      }
      return failure;
    } finally {
      await lease?.release().catch(() => undefined);
      this.#running.delete(sessionId);
      settle();
      if (this.#running.size === 0) {
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  #archiver(sessionId: string): NonNullable<ToolCallEnvironment['finishResult']> {
    return async (result, entry, call) => {
      if (entry.name === CONTEXT_TOOL_NAME && entry.info.source === 'builtin') return result;
      const archived = await archiveToolResult(result as NormalizedToolResult, {
        sessionId,
        toolName: entry.name,
        callId: call.callId,
        thresholdBytes: this.#archiveThreshold,
        store: this.#archive,
      });
      if (archived.refs.length > 0)
        await this.#store.update(sessionId, { appendArchiveRefs: archived.refs });
      return archived.result;
    };
  }

  #ensureInitialized(): Promise<void> {
    const signal = this.#closeController.signal;
    this.#initialized ??= Promise.all(this.#executors.map((e) => e.initialize?.({ signal }))).then(
      () => undefined,
    );
    this.#initialized.catch(() => (this.#initialized = undefined));
    return this.#initialized;
  }

  #assertIdle(operation: string): void {
    this.#assertOpen();
    if (this.#running.size > 0 || this.#activities.size > 0) {
      throw new MusterError(
        'REGISTRY_BUSY',
        `agent.mcp.${operation}() needs an idle agent, but a run is in progress: call it after awaitIdle(), never from a hook.`,
      );
    }
  }

  /** Observers see events that happen outside any run (list changes, disconnects, registry changes). */
  #background(event: AgentEvent | ExecutorEvent): void {
    const onEvent = this.#options.observability?.onEvent;
    const named = event.runId === '' ? { ...event, runId: 'background' } : event;
    if (onEvent)
      callIsolated(() => onEvent(named as AgentEvent), this.#options.observability?.onError);
  }

  #outsideRunContext(operation: string, emit: (ev: AgentEvent) => void): ExecutorRunContext {
    const signal = this.#closeController.signal;
    return {
      sessionId: '',
      runId: operation,
      signal,
      emit: (ev) => emit({ ...ev, runId: operation } as AgentEvent),
      authorize: (req) =>
        this.#policy.authorize(req, {
          signal,
          onObserverError: (err) => {
            const onError = this.#options.observability?.onError;
            if (onError) callIsolated(() => onError(err), undefined);
          },
        }),
    };
  }

  #assertOpen(): void {
    if (this.#closeController.signal.aborted)
      throw abortedError('The agent', new Error('the agent is closed; create a new one'));
  }
}

function toList<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}

function userMessage(request: RunRequest): UserMessage {
  const content: UserContentPart[] = request.inputContent
    ? [...request.inputContent]
    : [{ type: 'text', text: request.input ?? '' }];
  return { role: 'user', content };
}

/** Creates an agent; the same as `new Agent(options)`. */
export function createAgent(options: AgentOptions = {}): Agent {
  return new Agent(options);
}
