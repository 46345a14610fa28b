// The message and option shapes of `muster-agent/query`, in the style of the query() SDKs
// (snake_case fields, `type`/`subtype` discriminants). Types only.
import type { McpServerStatusValue } from '../mcp/index.js';
import type { Wait } from '../agent/index.js';

/** A content block of a user or assistant message. */
export type QueryContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'image';
      readonly source: {
        readonly type: 'base64';
        readonly media_type: string;
        readonly data: string;
      };
    }
  | {
      readonly type: 'tool_use';
      readonly id: string;
      readonly name: string;
      readonly input: Readonly<Record<string, unknown>>;
    }
  | {
      readonly type: 'tool_result';
      readonly tool_use_id: string;
      readonly content: string;
      readonly is_error: boolean;
    };

/** A user turn as a prompt stream yields it (and as `query()` echoes tool results). */
export interface QueryUserMessage {
  readonly type: 'user';
  readonly message: {
    readonly role: 'user';
    readonly content: string | readonly QueryContentBlock[];
  };
  readonly session_id?: string;
  readonly parent_tool_use_id?: string | null;
  readonly uuid?: string;
}

/** Token usage, in the reference SDKs' field names. */
export interface QueryUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
}

/** One server as `mcpServerStatus()` and the init message report it. */
export interface QueryMcpServerStatus {
  readonly name: string;
  readonly status: McpServerStatusValue;
  /** The server's tools (model-facing `name`), with the hints that were set. */
  readonly tools: readonly {
    readonly name: string;
    readonly annotations: {
      readonly readOnly?: boolean;
      readonly destructive?: boolean;
      readonly openWorld?: boolean;
    };
  }[];
  /** Sanitized (no secrets). */
  readonly error?: { readonly code: string; readonly message: string };
}

/** `system`/`init`: the session, model, tools and servers a query starts with. */
export interface QuerySystemInitMessage {
  readonly type: 'system';
  readonly subtype: 'init';
  readonly session_id: string;
  readonly uuid: string;
  readonly model: string;
  readonly cwd: string;
  /** Model-facing names of the tools the model may see (after `tools` visibility). */
  readonly tools: readonly string[];
  readonly mcp_servers: readonly { readonly name: string; readonly status: McpServerStatusValue }[];
  readonly permissionMode: 'default';
}

/** `system`/`elicitation_complete`: a server's URL-mode elicitation finished. */
export interface QueryElicitationCompleteMessage {
  readonly type: 'system';
  readonly subtype: 'elicitation_complete';
  readonly session_id: string;
  readonly uuid: string;
  readonly mcp_server_name: string;
  readonly elicitation_id?: string;
}

/** The model's message of one turn: text and `tool_use` blocks. */
export interface QueryAssistantMessage {
  readonly type: 'assistant';
  readonly session_id: string;
  readonly uuid: string;
  readonly parent_tool_use_id: null;
  readonly message: {
    readonly id: string;
    readonly type: 'message';
    readonly role: 'assistant';
    readonly model: string;
    readonly content: readonly QueryContentBlock[];
    readonly stop_reason: string;
    readonly usage: QueryUsage;
  };
}

/** A content block as a raw stream event opens it (its content comes in deltas). */
export type QueryStreamContentBlock =
  | { readonly type: 'text'; readonly text: '' }
  | { readonly type: 'thinking'; readonly thinking: ''; readonly signature: '' }
  | {
      readonly type: 'tool_use';
      readonly id: string;
      readonly name: string;
      readonly input: Readonly<Record<string, never>>;
    };

/**
 * One raw stream event of a model turn, in the Anthropic Messages API's streaming shape:
 * `message_start`, then per content block `content_block_start`, its
 * `content_block_delta`s (`text_delta`, `thinking_delta`, `input_json_delta`) and
 * `content_block_stop`, then `message_delta` (stop reason, usage) and `message_stop`.
 */
export type QueryRawStreamEvent =
  | {
      readonly type: 'message_start';
      readonly message: {
        readonly id: string;
        readonly type: 'message';
        readonly role: 'assistant';
        readonly model: string;
        readonly content: readonly [];
        readonly stop_reason: null;
        readonly stop_sequence: null;
        readonly usage: QueryUsage;
      };
    }
  | {
      readonly type: 'content_block_start';
      readonly index: number;
      readonly content_block: QueryStreamContentBlock;
    }
  | {
      readonly type: 'content_block_delta';
      readonly index: number;
      readonly delta:
        | { readonly type: 'text_delta'; readonly text: string }
        | { readonly type: 'thinking_delta'; readonly thinking: string }
        | { readonly type: 'input_json_delta'; readonly partial_json: string };
    }
  | { readonly type: 'content_block_stop'; readonly index: number }
  | {
      readonly type: 'message_delta';
      readonly delta: { readonly stop_reason: string; readonly stop_sequence: null };
      readonly usage: QueryUsage;
    }
  | { readonly type: 'message_stop' };

/**
 * A partial assistant message (`options.includePartialMessages`): one raw stream event of
 * the model turn in progress, yielded as it arrives, before the turn's whole `assistant`
 * message (whose `message.id` is the `message_start`'s).
 */
export interface QueryStreamEventMessage {
  readonly type: 'stream_event';
  readonly event: QueryRawStreamEvent;
  readonly parent_tool_use_id: null;
  readonly uuid: string;
  readonly session_id: string;
}

/** A tool call that the policy (or `canUseTool`) refused. */
export interface QueryPermissionDenial {
  readonly tool_name: string;
  readonly tool_use_id: string;
  readonly tool_input: Readonly<Record<string, unknown>>;
}

/**
 * The subtypes of a final `result`: `success`; `parked` (no answer and no failure: a call
 * waits on a decision, after `canUseTool` answered `defer`); `error_max_turns` is
 * `AGENT_LIMIT_EXCEEDED` on `maxIterations`, `error_max_structured_output_retries` is
 * `OUTPUT_INVALID` (an `outputFormat` answer still invalid after its repair turns),
 * `error_max_budget_usd` is `BUDGET_EXHAUSTED` on `maxBudgetUsd` (`limits.maxCostUsd`),
 * `error_during_execution` any other failure.
 */
export type QueryResultSubtype =
  | 'success'
  | 'parked'
  | 'error_max_turns'
  | 'error_max_structured_output_retries'
  | 'error_max_budget_usd'
  | 'error_during_execution';

/** The call a parked turn waits on, in the reference SDK's `deferred_tool_use` shape. */
export interface QueryDeferredToolUse {
  /** The tool call id (`tool_use_id`). */
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/**
 * The end of one user turn: success with the final text, `parked` with the waits a deferred
 * call left (`is_error: false`, `stop_reason: 'tool_deferred'`), or an error subtype.
 */
export interface QueryResultMessage {
  readonly type: 'result';
  readonly subtype: QueryResultSubtype;
  readonly session_id: string;
  readonly uuid: string;
  readonly is_error: boolean;
  readonly duration_ms: number;
  readonly duration_api_ms: number;
  readonly num_turns: number;
  /** The final text (success only). */
  readonly result?: string;
  /**
   * The typed answer, validated against `options.outputFormat.schema` (success of a query
   * with `outputFormat` only).
   */
  readonly structured_output?: unknown;
  readonly usage: QueryUsage;
  /**
   * What the turn cost in US dollars, priced by `pricing` (its delegated runs and sampling
   * included when it ended with an answer or on its budget); 0 when no price is known.
   */
  readonly total_cost_usd: number;
  readonly permission_denials: readonly QueryPermissionDenial[];
  /** Error messages (error subtypes only). */
  readonly errors?: readonly string[];
  /** The Muster error code behind an error subtype. */
  readonly error_code?: string;
  /** `tool_deferred` on a `parked` result (the reference SDK's stop reason for `defer`). */
  readonly stop_reason?: 'tool_deferred';
  /** `parked` only: the first call that waits (the reference SDK's field). */
  readonly deferred_tool_use?: QueryDeferredToolUse;
  /**
   * `parked` only: every wait the session holds (SPEC 15.1). Decide them with
   * `agent.decide()` (or `muster decide`) from any process with the same store, or answer
   * them in a query that continues the session (`options.resume` and the same
   * `sessionStore`): its `canUseTool` is asked again about each pending call.
   */
  readonly waits?: readonly Wait[];
}

/**
 * `options.outputFormat`: ask every turn for a typed final answer (SPEC 15.4; Muster's
 * `run({ output: { schema } })`). The model may call tools first, then answers with JSON
 * matching `schema` (a plain JSON Schema object); the success `result` carries the validated
 * value as `structured_output`. An answer still invalid after the repair turn ends the turn
 * with `error_max_structured_output_retries`.
 */
export interface QueryOutputFormat {
  readonly type: 'json_schema';
  readonly schema: Readonly<Record<string, unknown>>;
}

/** Every message `query()` yields, discriminated on `type` (and `subtype` for `system`). */
export type QueryMessage =
  | QuerySystemInitMessage
  | QueryElicitationCompleteMessage
  | QueryStreamEventMessage
  | QueryAssistantMessage
  | QueryUserMessage
  | QueryResultMessage;

/**
 * What `canUseTool` answers. `updatedInput` replaces the arguments (validated again).
 * `defer` parks the call: the turn ends with a `parked` result naming the wait, and the
 * query ends; continue the session in a new query (`options.resume`, the same
 * `sessionStore`) once the wait is decided, or let that query's `canUseTool` decide it.
 */
export type QueryPermissionResult =
  | { readonly behavior: 'allow'; readonly updatedInput?: Record<string, unknown> }
  | { readonly behavior: 'deny'; readonly message: string; readonly interrupt?: boolean }
  | { readonly behavior: 'defer'; readonly message?: string };

/** Asked about every visible call that `allowedTools` does not pre-approve. */
export type QueryCanUseTool = (
  toolName: string,
  input: Readonly<Record<string, unknown>>,
  options: {
    readonly signal: AbortSignal;
    readonly suggestions?: readonly unknown[];
    readonly toolUseID: string;
  },
) => Promise<QueryPermissionResult>;

/** A server's request for user input, in the reference SDKs' shape. */
export interface QueryElicitationRequest {
  readonly serverName: string;
  readonly message: string;
  readonly mode: 'form' | 'url';
  readonly url?: string;
  readonly elicitationId?: string;
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
}

/** The user's answer to an elicitation. */
export interface QueryElicitationResult {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Readonly<Record<string, unknown>>;
}

/** Answers servers' elicitation requests (form and URL mode). */
export type QueryOnElicitation = (
  request: QueryElicitationRequest,
  options: { readonly signal: AbortSignal },
) => Promise<QueryElicitationResult>;

/** What `initializationResult()` resolves with: the same facts as the init message. */
export interface QueryInitializationResult {
  readonly session_id: string;
  readonly model: string;
  readonly tools: readonly string[];
  readonly mcp_servers: readonly QueryMcpServerStatus[];
}
