import type { ImagePart, Usage } from '../model/index.js';
import type { TraceContext } from '../util/index.js';
import type { AuthorizationDecision, AuthorizationRequest, CallPolicy } from '../policy/index.js';

/** JSON Schema of a tool's input or output, as an object. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * MCP tool annotations. They are advisory: shown in status, used for scheduling (read-only
 * calls of one turn may run concurrently), never used to authorize.
 */
export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** Where a tool comes from. */
export type ToolSource = 'host' | 'mcp' | 'builtin' | 'executor';

/** A tool as an executor declares it. */
export interface ToolDefinition {
  /** The model-facing name, `^[A-Za-z0-9_-]{1,64}$`. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
}

/** Safe facts about a tool for policy, approval and events. Never carries credentials. */
export interface ToolInfo {
  readonly source: ToolSource;
  /** The MCP server's registry name, for MCP tools. */
  readonly server?: string;
  /** The tool's own name on its server, for MCP tools (the model-facing name may differ). */
  readonly originalName?: string;
  /** Extra safe metadata a host executor wants policy rules to see. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A progress report from a running tool. */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** What a tool implementation receives besides its arguments. */
export interface ToolExecutionContext {
  /** Fires when the run is aborted or the agent closes. */
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly runId: string;
  /** The user the calling run acts for (SPEC 15.4); absent for the local user. */
  readonly principal?: string | undefined;
  readonly callId: string;
  /** The model turn (1-based) that asked for this call. */
  readonly iteration: number;
  /** The largest result, in UTF-8 bytes, that will be accepted. */
  readonly maxResultBytes: number;
  /** Reports progress; each report becomes a `tool.progress` event. */
  reportProgress(progress: ToolProgress): void;
  /**
   * When the run is traced: the OpenTelemetry context holding this call's `execute_tool` span,
   * for a run the tool starts (`run({ traceContext })`) or the host's own spans.
   */
  readonly traceContext?: TraceContext;
  /**
   * The calling run's policy (a child agent's layers, then its ancestors'), for tools that
   * reach targets of their own and must check them as the run would (the MCP resource tools);
   * absent outside the pipeline.
   */
  readonly policy?: CallPolicy;
  /**
   * The calling run, for tools that run an agent of their own (`asTool`); absent when the
   * executor is called outside Muster's pipeline. What it reports after the call has ended is
   * dropped.
   */
  readonly run?: ToolRunLink;
}

/**
 * What a tool that runs another agent (a child's `asTool`) reports into the run that called
 * it: the other run's events, and the usage spent on the call.
 */
export interface ToolRunLink {
  /**
   * Adds an event of another run (its own `sessionId` and `runId` kept) to this run's event
   * stream. Observers are not called again: the agent that ran it told its own.
   */
  forward(event: ExecutorEvent): void;
  /** Counts usage spent for this call (a delegated run's) toward this run and its session. */
  addUsage(usage: Usage): void;
}

/** The normalized result of a tool call. `content` is what the model reads. */
export interface ToolResult {
  readonly content: string;
  readonly isError?: boolean;
  /** Structured output, checked against the tool's output schema when it declares one. */
  readonly structured?: unknown;
  /** Bounded images forwarded to the next model turn; never persisted. */
  readonly media?: readonly ImagePart[];
}

/** An MCP `CallToolResult`, as tools and servers produce it. */
export interface CallToolResultLike {
  readonly content: readonly Readonly<Record<string, unknown>>[];
  readonly isError?: boolean;
  readonly structuredContent?: unknown;
}

/** What a tool implementation may return. */
export type ToolReturn = string | ToolResult | CallToolResultLike;

/**
 * A source of model-callable tools. The agent composes executors (host tools, MCP, your own)
 * and puts every call through the same policy pipeline before `execute` runs.
 */
export interface ToolExecutor {
  /** The tools this executor offers now. Called once per run to fix that run's catalog. */
  listTools(): readonly ToolDefinition[] | Promise<readonly ToolDefinition[]>;
  /** Runs one call whose arguments already passed validation and policy. */
  execute(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<ToolReturn>;
  /** Safe facts about one tool; defaults to `{ source: 'executor' }`. */
  getToolInfo?(name: string): ToolInfo | undefined;
  /**
   * Validates arguments itself instead of the JSON Schema validator (for example with the
   * Standard Schema a host tool was defined with).
   */
  validateInput?(name: string, input: unknown): ValidationOutcome | Promise<ValidationOutcome>;
  /** Prepares the executor (connect, discover). Called before the first run. */
  initialize?(ctx?: ExecutorInitContext): Promise<void>;
  /**
   * Called at the start of every run, before the run's catalog is fixed: the place to connect
   * what is not connected yet and to refresh stale listings (never during a run).
   */
  prepareRun?(ctx: ExecutorRunContext): Promise<void>;
  /** Releases what the executor holds. Must be idempotent. */
  close?(): Promise<void>;
}

/** What {@link ToolExecutor.initialize} receives. */
export interface ExecutorInitContext {
  readonly signal?: AbortSignal;
}

/** An event an executor reports (for example `mcp.server.status`); the agent adds it to the run. */
export interface ExecutorEvent {
  readonly type: string;
  readonly timestamp: string;
  readonly sessionId: string;
  readonly runId: string;
}

/** What {@link ToolExecutor.prepareRun} receives. */
export interface ExecutorRunContext {
  readonly sessionId: string;
  readonly runId: string;
  /** The user the run acts for (SPEC 15.4); absent for the local user. */
  readonly principal?: string | undefined;
  readonly signal: AbortSignal;
  /** Reports an event into the run's event stream. */
  emit(event: ExecutorEvent): void;
  /** Authorizes a capability (such as `mcp_connect:<server>`) through the agent's policy. */
  authorize(request: AuthorizationRequest): Promise<AuthorizationDecision>;
}

/** One problem found in a value, with the path to it. */
export interface ValidationIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** The result of validating a value: the (possibly transformed) value, or its issues. */
export type ValidationOutcome =
  | { readonly success: true; readonly value: unknown }
  | { readonly success: false; readonly issues: readonly ValidationIssue[] };
