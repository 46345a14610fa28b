import type { ModelClient, ReasoningEffort, Usage, UserContentPart } from '../model/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { SessionStore } from '../session/index.js';
import type { ContextOptions } from '../context/index.js';
import type {
  McpOptions,
  McpServerConfig,
  OnElicitationHook,
  OnElicitationResultHook,
  SdkMcpServer,
} from '../mcp/index.js';
import type { McpContextOptions } from './mcp-context.js';
import type { AfterToolHook, BeforeToolHook, Tool, ToolExecutor } from '../tools/index.js';
import type { AgentEvent } from './events.js';
import type { Limits } from './limits.js';
import type { Pricing } from './pricing.js';
import type { TraceContext, Tracer } from '../util/index.js';
import type { OutputOption } from './output/index.js';
import type { WaitOptions } from './run-waits.js';
import type { Wait } from '../session/index.js';

/**
 * Opt-in retries of a model turn that failed with a retryable `ModelError` (rate limits, 5xx,
 * overloaded, dropped connections) before it streamed any part. A turn that already streamed
 * something is never retried. The delay grows from `initialDelayMs` (default 500) by doubling
 * up to `maxDelayMs` (default 8000), with jitter.
 */
export interface ModelRetryOptions {
  /** Attempts in all, the first included (2 means one retry). */
  readonly maxAttempts: number;
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
}

/** Agent hooks. Each may be one function or a list, run in order. */
export interface Hooks {
  readonly beforeTool?: BeforeToolHook | readonly BeforeToolHook[];
  readonly afterTool?: AfterToolHook | readonly AfterToolHook[];
  /** May answer a server's elicitation before `mcp.handlers.elicitation` does. */
  readonly onElicitation?: OnElicitationHook;
  /** May rewrite or block (`false`) an elicitation answer before it reaches the server. */
  readonly onElicitationResult?: OnElicitationResultHook;
}

/** Callbacks that watch an agent; their failures never change a run. */
export interface Observability {
  /** Sees every event of every run. */
  readonly onEvent?: (event: AgentEvent) => unknown;
  /** Receives failures of observers (this one's `onEvent`, the policy observer). */
  readonly onError?: (error: unknown) => unknown;
  /**
   * The OpenTelemetry tracer of the run, model, tool and MCP connect spans (SPEC 12b). When
   * absent, the global provider of `@opentelemetry/api` is used if the package is installed
   * and a provider is registered; otherwise no span is made.
   */
  readonly tracer?: Tracer;
  /** `false` turns tracing off (no span, and `@opentelemetry/api` is never imported). */
  readonly tracing?: boolean;
  /**
   * Records content on spans: the run's input and answer, each turn's output, tool arguments
   * and results (default false: ids, names, counts and error codes only).
   */
  readonly traceContent?: boolean;
  /**
   * The agent's name in traces (`gen_ai.agent.name`, the run span `invoke_agent <name>`); its
   * children do not take it (`child({ name })` names a child).
   */
  readonly agentName?: string;
}

/** What `createAgent` takes (SPEC section 3). */
export interface AgentOptions {
  /** The model; required for `run()` and `send()`. */
  readonly model?: ModelClient;
  /** The provider's model name; a run's `modelName` overrides it. */
  readonly modelName?: string;
  /** The system prompt; a run's `system` overrides it. */
  readonly system?: string;
  /** Where project files are looked up; defaults to `process.cwd()`. */
  readonly workdir?: string;
  /** Host tools made with `tool()`. */
  readonly tools?: readonly Tool[];
  /** Another tool source, composed with the host tools. */
  readonly toolExecutor?: ToolExecutor;
  /**
   * MCP servers by name, merged with the project and user files. An in-process server is
   * `{ type: 'sdk', server }` or the value of `createSdkMcpServer()` itself.
   */
  readonly mcpServers?: Readonly<Record<string, McpServerConfig | SdkMcpServer>>;
  readonly mcp?: McpOptions;
  readonly policy?: PolicyOptions;
  readonly hooks?: Hooks;
  /** Where sessions live; defaults to a new `MemorySessionStore`. */
  readonly sessionStore?: SessionStore;
  /**
   * How long a run's store lease lasts unrenewed, in ms (default 30000). The run renews it
   * every third of that; a run that cannot renew in time stops with `SESSION_ALREADY_RUNNING`,
   * and another replica may take the session over once it expires.
   */
  readonly sessionLeaseMs?: number;
  readonly limits?: Partial<Limits>;
  /**
   * Prices per model name, in US dollars per million tokens (SPEC 15.4): with a price for the
   * model in use, each turn's `usage.costUsd` is known and a run may have `limits.maxCostUsd`.
   */
  readonly pricing?: Pricing;
  /** Where archived tool results live, and how much of them a session keeps. */
  readonly context?: ContextOptions;
  readonly observability?: Observability;
  /** Retries of model turns that failed before streaming anything; off when absent. */
  readonly modelRetry?: ModelRetryOptions;
  /** A stable prompt cache key sent to providers that have one (OpenAI `prompt_cache_key`). */
  readonly promptCacheKey?: string;
  /** MCP resources and prompts preloaded before every run's first model call (a run's own replaces it). */
  readonly mcpContext?: McpContextOptions;
  /**
   * Repair turns a run with `output` gets when its final answer is invalid (default 1): each
   * shows the model what is wrong; after the last, the run fails with `OUTPUT_INVALID`.
   */
  readonly outputRepairs?: number;
  /** How long waits of parked runs last, and what their expiry decides (SPEC 15.1). */
  readonly waits?: WaitOptions;
  /**
   * Which events of a run the store's event log keeps (SPEC 15.2): `'default'` every event
   * but `model.delta`, `'all'` every one.
   */
  readonly eventLog?: 'default' | 'all';
}

/** One run (SPEC section 3). Give `input`, or `inputContent` for text and images. */
export interface RunRequest {
  readonly input?: string;
  /** Text and image parts; replaces `input` when both are given. */
  readonly inputContent?: readonly UserContentPart[];
  /** Continue this session (or create it with this id). A new id is made when absent. */
  readonly sessionId?: string;
  /**
   * The user this run acts for (SPEC 15.4): 1–256 characters, no control characters. It is
   * stored with a new session; continuing or resuming a session needs the principal stored
   * with it (`PRINCIPAL_MISMATCH` otherwise; a session without one belongs to the local user,
   * who passes none). Delegated runs (`asTool`) act for the principal of the run that calls
   * them. Policy requests (`req.principal`), waits and `session.started` carry it.
   */
  readonly principal?: string;
  readonly modelName?: string;
  readonly system?: string;
  /** Stream model text as `model.delta` events (default true). */
  readonly stream?: boolean;
  /** Aborts the model stream and every in-flight call. */
  readonly signal?: AbortSignal;
  readonly limits?: Partial<Limits>;
  readonly reasoningEffort?: ReasoningEffort;
  /** Model retries for this run; replaces the agent's `modelRetry`. */
  readonly modelRetry?: ModelRetryOptions;
  /** The prompt cache key of this run; replaces the agent's `promptCacheKey`. */
  readonly promptCacheKey?: string;
  /** MCP resources and prompts preloaded before this run's first model call. */
  readonly mcpContext?: McpContextOptions;
  /**
   * The OpenTelemetry context whose span is the parent of this run's span (a delegated run
   * passes its tool's `traceContext`); the active context when absent.
   */
  readonly traceContext?: TraceContext;
  /**
   * Ask for a typed final answer (SPEC 15.4): the model may call tools first, then answers
   * with JSON matching this schema; `session.completed.output` carries the validated value.
   */
  readonly output?: OutputOption;
  /** Repair turns of an invalid typed answer for this run; replaces the agent's `outputRepairs`. */
  readonly outputRepairs?: number;
}

/** What `send()` resolves with; `T` is the typed answer's type when the run asked for `output`. */
export interface SendResult<T = unknown> {
  /**
   * `completed`, or `parked` (SPEC 15.1): the run waits on `waits`; decide them with
   * `agent.decide()` from any process, then `agent.resume(sessionId)`.
   */
  readonly status: 'completed' | 'parked';
  /** The waits a parked run waits on (absent when it completed). */
  readonly waits?: readonly Wait[];
  /** The final answer. */
  readonly text: string;
  /**
   * The typed final answer, validated against the run's `output` schema (its output type);
   * absent when the run asked for none.
   */
  readonly output?: T;
  readonly sessionId: string;
  readonly usage: Usage;
  /** Every event of the run, in order. */
  readonly events: readonly AgentEvent[];
}
