import {
  ContextManager,
  ContextToolExecutor,
  DEFAULT_ARCHIVE_THRESHOLD_BYTES,
  MemoryArchiveStore,
} from '../context/index.js';
import { MusterError } from '../errors/index.js';
import { createMcpRuntime } from '../mcp/index.js';
import { ToolPolicy } from '../policy/index.js';
import { MemorySessionStore } from '../session/index.js';
import type { SessionStore } from '../session/index.js';
import { HostToolExecutor } from '../tools/index.js';
import type { ExecutorEvent, ExecutorRunContext, ToolExecutor } from '../tools/index.js';
import type { AgentOptions } from './agent-options.js';
import type { AgentScope } from './agent-scope.js';
import { agentSampler } from './agent-sampler.js';
import { assertCostPriceable } from './pricing.js';
import type { AgentEvent } from './events.js';
import { DEFAULT_LIMITS, resolveLimits } from './limits.js';
import { decideSignIns } from './sign-in-waits.js';
import { AgentTracing } from './tracing/index.js';

/** Everything a root agent is built from, assembled once from its options. */
export type RuntimeParts = Pick<
  AgentScope,
  | 'limits'
  | 'store'
  | 'archive'
  | 'archiveThresholdBytes'
  | 'context'
  | 'contextTool'
  | 'executors'
  | 'mcp'
  | 'tracing'
  | 'agentName'
> & {
  /** The root's policy, which also decides what its children's runs connect. */
  readonly policy: ToolPolicy;
};

/** What the parts call back into once built: the runtime's lifecycle. */
export interface RuntimeLifecycle {
  /** Runs a registry change once nothing is in flight (`REGISTRY_BUSY` otherwise), tracked. */
  exclusive<T>(operation: string, fn: () => Promise<T>): Promise<T>;
  outsideRunContext(operation: string, emit: (ev: AgentEvent) => void): ExecutorRunContext;
  background(event: AgentEvent | ExecutorEvent): void;
  reportError(err: unknown): void;
}

/**
 * Builds a root agent's parts from its validated options: the policy, limits, session store
 * and archive, the context manager, every tool source (MCP through its one builder) and the
 * tracing. It starts nothing: no connection, process or import happens until a run or
 * `initialize()`. The only place that reaches `src/agent/tracing/`.
 */
export function buildRuntimeParts(options: AgentOptions, life: RuntimeLifecycle): RuntimeParts {
  const limits = resolveLimits(DEFAULT_LIMITS, options.limits, 'limits');
  assertCostPriceable(limits, options.pricing, 'limits');
  const policy = new ToolPolicy(options.policy ?? {});
  const store: SessionStore = options.sessionStore ?? new MemorySessionStore();
  if (options.policy?.park === true && !store.waits)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'policy.park parks runs in the session store, but this store keeps no waits: give it a `waits` object with put, get, list, decide and remove (SessionWaits), or use the memory, SQLite or PostgreSQL store.',
      {
        details: {
          missing: ['waits.put', 'waits.get', 'waits.list', 'waits.decide', 'waits.remove'],
        },
      },
    );
  // a store that keeps an archive keeps it with the sessions (paging survives restarts)
  const archive =
    store.archive ??
    options.context?.archiveStore ??
    new MemoryArchiveStore(
      options.context?.maxArchiveBytesPerSession !== undefined
        ? { maxBytesPerSession: options.context.maxArchiveBytesPerSession }
        : {},
    );
  const executors: ToolExecutor[] = [];
  if (options.tools && options.tools.length > 0)
    executors.push(new HostToolExecutor(options.tools));
  if (options.toolExecutor) executors.push(options.toolExecutor);
  const mcp = createMcpRuntime(
    {
      mcpServers: options.mcpServers,
      mcp: options.mcp,
      workdir: options.workdir,
      isVisible: (subject) => policy.isVisible(subject),
      hooks: {
        ...(options.hooks?.onElicitation ? { onElicitation: options.hooks.onElicitation } : {}),
        ...(options.hooks?.onElicitationResult
          ? { onElicitationResult: options.hooks.onElicitationResult }
          : {}),
      },
      agentSampler: agentSampler({
        ...(options.model ? { model: options.model } : {}),
        ...(options.modelName ? { modelName: options.modelName } : {}),
        ...(options.pricing ? { pricing: options.pricing } : {}),
      }),
    },
    {
      exclusive: (operation, fn) => life.exclusive(operation, fn),
      contextFor: (operation) => life.outsideRunContext(operation, (ev) => life.background(ev)),
      // a principal's sign-in decides the auth waits of its parked runs (SPEC 15.4)
      signedIn: async (server, principal) => {
        await decideSignIns(store, server, principal);
      },
    },
    (ev) => life.background(ev),
  );
  executors.push(mcp.executor);
  if (mcp.resourceTools) executors.push(mcp.resourceTools);
  return {
    policy,
    limits,
    store,
    archive,
    archiveThresholdBytes: mcp.options.archiveThresholdBytes ?? DEFAULT_ARCHIVE_THRESHOLD_BYTES,
    context: new ContextManager(options.context),
    contextTool: new ContextToolExecutor({ store: archive }),
    executors,
    mcp: mcp.facade,
    tracing: AgentTracing.of(
      options.observability,
      (server) => mcp.facade.list().find((s) => s.name === server)?.type,
      (err) => life.reportError(err),
    ),
    agentName: options.observability?.agentName,
  };
}
