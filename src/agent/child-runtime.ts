import { MusterError, abortedError, agentClosedError } from '../errors/index.js';
import type { McpFacade } from '../mcp/index.js';
import { LayeredPolicy, ToolPolicy } from '../policy/index.js';
import type {
  AuthorizationDecision,
  AuthorizationRequest,
  CallPolicy,
  PolicyOptions,
} from '../policy/index.js';
import { HostToolExecutor } from '../tools/index.js';
import type { ExecutorEvent, ExecutorRunContext, ToolExecutor } from '../tools/index.js';
import type { AgentOptions, Hooks } from './agent-options.js';
import type { AgentScope } from './agent-scope.js';
import { childMcpFacade } from './child-mcp.js';
import type { ChildAgentOptions } from './child-options.js';
import type { AgentEvent } from './events.js';
import { IdleTracker } from './idle-tracker.js';
import { outsideRunContext } from './outside-run-context.js';
import { resolveLimits } from './limits.js';
import type { Limits } from './limits.js';
import { UsageTally } from './usage-tally.js';
import { assertCostPriceable } from './pricing.js';

/**
 * A child agent's runtime: it borrows its parent's tool sources (the same executor objects:
 * no new process, connection or discovery), store, archive and context, and adds only its
 * own host tools and its own policy layer. Its runs count as its parent's activity; closing
 * it cancels only its own runs (and its children's); closing an ancestor closes it.
 */
export class ChildRuntime implements AgentScope {
  readonly options: AgentOptions;
  readonly policy: CallPolicy;
  readonly limits: Limits;
  readonly executors: readonly ToolExecutor[];
  readonly mcp: McpFacade;
  readonly usage: UsageTally;
  readonly closeSignal: AbortSignal;
  /** The child's own name (never its parent's): its runs' spans are `invoke_agent <name>`. */
  readonly agentName: string | undefined;
  readonly #parent: AgentScope;
  readonly #own: readonly ToolExecutor[];
  readonly #closeController = new AbortController();
  readonly #mine = new Set<string>();
  readonly #idle = new IdleTracker(() => this.#mine.size === 0);
  #closing: Promise<void> | undefined;

  constructor(parent: AgentScope, options: ChildAgentOptions) {
    parent.assertOpen();
    this.#parent = parent;
    const own =
      options.tools && options.tools.length > 0 ? new HostToolExecutor(options.tools) : undefined;
    const ownNames = new Set(own ? own.listTools().map((d) => d.name) : []);
    checkNames(ownNames, parent.executors);
    this.#own = own ? [own] : [];
    this.executors = [...this.#own, ...parent.executors];
    this.policy = new LayeredPolicy([
      { policy: new ToolPolicy(childPolicy(options.policy)), owns: (name) => ownNames.has(name) },
      { policy: parent.policy },
    ]);
    this.limits = resolveLimits(parent.limits, options.limits, 'child limits');
    assertCostPriceable(this.limits, parent.options.pricing, 'child limits');
    this.options = childAgentOptions(parent.options, options);
    this.mcp = childMcpFacade(parent.mcp);
    this.usage = new UsageTally(parent.usage);
    this.closeSignal = AbortSignal.any([this.#closeController.signal, parent.closeSignal]);
    this.agentName = options.name;
  }

  /** The root's session store: children keep their sessions with the root's. */
  get store() {
    return this.#parent.store;
  }
  /** The root's archive of large tool results. */
  get archive() {
    return this.#parent.archive;
  }
  /** The root's size above which a tool result is archived. */
  get archiveThresholdBytes() {
    return this.#parent.archiveThresholdBytes;
  }
  /** The root's context management. */
  get context() {
    return this.#parent.context;
  }
  /** The root's built-in `context` tool. */
  get contextTool() {
    return this.#parent.contextTool;
  }
  /** The root's model answers sampling requests, a child's runs' included. */
  get samplingModelName() {
    return this.#parent.samplingModelName;
  }
  /** The root's tracing (one tracer); each run names its own agent. */
  get tracing() {
    return this.#parent.tracing;
  }
  /** Sessions with a run in this process, for the root and all its children together. */
  get running() {
    return this.#parent.running;
  }

  /** Connections are the root's: only its policy decides them. The rest passes every layer. */
  authorize(request: AuthorizationRequest, signal: AbortSignal): Promise<AuthorizationDecision> {
    if (request.kind === 'connection') return this.#parent.authorize(request, signal);
    return this.policy.authorize(request, {
      signal,
      onObserverError: (e) => this.reportError(e),
    });
  }

  /** Keeps `awaitIdle()` and `close()` waiting for work outside runs. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#idle.track(work);
    return this.#parent.track(work);
  }

  /** Marks a session as running (here and in every ancestor); the returned function ends it. */
  startRun(sessionId: string): () => void {
    const endParent = this.#parent.startRun(sessionId);
    this.#mine.add(sessionId);
    return () => {
      this.#mine.delete(sessionId);
      endParent();
      this.#idle.wake();
    };
  }

  /** Resolves once no run of this child and no tracked work is left. */
  awaitIdle(): Promise<void> {
    return this.#idle.wait();
  }

  /** True once every tool source has initialized: a run need not wait for it. */
  get initialized(): boolean {
    return this.#parent.initialized;
  }

  /** Initializes the root's tool sources (once), as the root does. */
  ensureInitialized(): Promise<void> {
    return this.#parent.ensureInitialized();
  }

  /** Throws `ABORTED` once the agent (or an ancestor) is closed. */
  assertOpen(): void {
    if (this.closeSignal.aborted)
      throw abortedError('The agent', new Error('the child agent (or its root) is closed'));
  }

  /** Hands an event raised outside any run to the root. */
  background(event: AgentEvent | ExecutorEvent): void {
    this.#parent.background(event);
  }

  /** Reports an observer's or hook's error through the root. */
  reportError(err: unknown): void {
    this.#parent.reportError(err);
  }

  /** A run context for `operation`, a tool call made outside any run, emitting through `emit`. */
  outsideRunContext(operation: string, emit: (ev: AgentEvent) => void): ExecutorRunContext {
    return outsideRunContext(this, operation, emit);
  }

  /** Cancels this child's runs (and its children's); the borrowed sources stay open. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closeController.abort(agentClosedError('The child agent'));
      const runs = [...this.#mine].flatMap((id) => {
        const p = this.running.get(id);
        return p ? [p] : [];
      });
      await Promise.allSettled([...runs, ...this.#idle.activities]);
      await Promise.allSettled(this.#own.map((e) => e.close?.()));
    })();
    return this.#closing;
  }
}

/**
 * A child's layer defers to its parent unless it says otherwise (or brings an approver). It
 * cannot name connections: they are the root's, decided by the root's policy alone, so a
 * child's `mcp_connect:` pattern would be silently ignored; it fails instead.
 */
function childPolicy(options: PolicyOptions | undefined): PolicyOptions {
  const policy = options ?? {};
  for (const key of ['visibleTools', 'deny', 'allow'] as const) {
    const patterns: unknown = policy[key];
    if (!Array.isArray(patterns)) continue;
    const named = patterns.find((p) => typeof p === 'string' && p.startsWith('mcp_connect:'));
    if (named !== undefined)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `child policy.${key} names the connection '${String(named)}', but connections belong to the root agent and only its policy decides them: remove it, and narrow what the child may call with visibleTools or deny on 'mcp__<server>'.`,
        { details: { option: `policy.${key}` } },
      );
  }
  return policy.default !== undefined
    ? policy
    : { ...policy, default: policy.approve ? 'ask' : 'allow' };
}

/** The child's tools may not share a name with a host tool it borrows (`TOOL_NAME_CONFLICT`). */
function checkNames(own: ReadonlySet<string>, borrowed: readonly ToolExecutor[]): void {
  for (const e of borrowed) {
    if (!(e instanceof HostToolExecutor)) continue;
    for (const d of e.listTools()) {
      if (own.has(d.name))
        throw new MusterError(
          'TOOL_NAME_CONFLICT',
          `The child's tool '${d.name}' has the name of a tool it borrows from its parent: rename it.`,
          { details: { tool: d.name } },
        );
    }
  }
}

function childAgentOptions(parent: AgentOptions, child: ChildAgentOptions): AgentOptions {
  const modelName = child.modelName ?? (child.model ? undefined : parent.modelName);
  // the parent's preloaded MCP context is its own runs' (read by the root without the child's
  // policy): a child preloads only what its runs ask for
  const { modelName: _inherited, mcpContext: _preloaded, ...rest } = parent;
  return {
    ...rest,
    ...(child.model ? { model: child.model } : {}),
    ...(modelName !== undefined ? { modelName } : {}),
    ...(child.system !== undefined ? { system: child.system } : {}),
    hooks: childHooks(parent.hooks, child.hooks),
  };
}

/** The child's tool hooks first, then its parent's (which a child cannot skip). */
function childHooks(parent: Hooks | undefined, child: ChildAgentOptions['hooks']): Hooks {
  return {
    ...parent,
    beforeTool: [...list(child?.beforeTool), ...list(parent?.beforeTool)],
    afterTool: [...list(child?.afterTool), ...list(parent?.afterTool)],
  };
}

function list<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}
