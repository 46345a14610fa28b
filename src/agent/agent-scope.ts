import type { ContextManager, ContextToolExecutor, ArchiveStore } from '../context/index.js';
import type { McpFacade } from '../mcp/index.js';
import type { AuthorizationDecision, AuthorizationRequest, CallPolicy } from '../policy/index.js';
import type { SessionStore } from '../session/index.js';
import type { ExecutorEvent, ExecutorRunContext, ToolExecutor } from '../tools/index.js';
import type { AgentOptions } from './agent-options.js';
import type { AgentEvent } from './events.js';
import type { Limits } from './limits.js';
import type { UsageTally } from './usage-tally.js';
import type { RunTracing } from './run-observer.js';

/**
 * What an agent's runs, sessions and facade use of it: the root's `AgentRuntime`, or a child's
 * `ChildRuntime`, which borrows the root's tool sources, store, archive and context.
 */
export interface AgentScope {
  /** The agent's options (a child's: its own merged over its parent's). */
  readonly options: AgentOptions;
  /** The policy of tool calls (a child's: its layers, then its ancestors'). */
  readonly policy: CallPolicy;
  readonly limits: Limits;
  readonly store: SessionStore;
  readonly archive: ArchiveStore;
  readonly archiveThresholdBytes: number;
  readonly context: ContextManager;
  readonly contextTool: ContextToolExecutor;
  readonly executors: readonly ToolExecutor[];
  readonly mcp: McpFacade;
  /** Sessions with a run in this process, for the root and all its children together. */
  readonly running: ReadonlyMap<string, Promise<void>>;
  /** `agent.usage`. */
  readonly usage: UsageTally;
  /** Spans of runs and connects (SPEC 12b): a child traces with its root's tracer. */
  readonly tracing: RunTracing | undefined;
  /** The agent's name in traces: the root's `observability.agentName`, a child's `name`. */
  readonly agentName: string | undefined;
  /**
   * The model name that answers servers' sampling requests (`mcp.handlers.sampling: 'agent'`):
   * the root's model's, whatever model a run or a child uses; undefined when the agent's model
   * answers none.
   */
  readonly samplingModelName: string | undefined;
  /** Aborted when the agent (or an ancestor) closes. */
  readonly closeSignal: AbortSignal;
  /**
   * Authorizes what a tool source asks during a run or outside one: connections by the root's
   * policy (they are the root's), everything else by {@link policy}.
   */
  authorize(request: AuthorizationRequest, signal: AbortSignal): Promise<AuthorizationDecision>;
  /** Keeps `awaitIdle()` and `close()` waiting for work outside runs. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Marks a session as running (here and in every ancestor); the returned function ends it. */
  startRun(sessionId: string): () => void;
  awaitIdle(): Promise<void>;
  /** True once every tool source has initialized: a run need not wait for it. */
  readonly initialized: boolean;
  ensureInitialized(): Promise<void>;
  /** Throws `ABORTED` once the agent (or an ancestor) is closed. */
  assertOpen(): void;
  background(event: AgentEvent | ExecutorEvent): void;
  reportError(err: unknown): void;
  outsideRunContext(operation: string, emit: (ev: AgentEvent) => void): ExecutorRunContext;
  close(): Promise<void>;
}
