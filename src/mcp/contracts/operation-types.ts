import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ToolProgress } from '../../tools/index.js';
import type { RetryOptions } from '../../util/index.js';

/**
 * Retries of one MCP operation: off unless given; read/list operations only by default. Only
 * failures a later try may fix are retried (transport failures, timeouts, requests not sent,
 * JSON-RPC internal errors), never a definite refusal of the server.
 */
export interface McpRetryOptions extends RetryOptions {
  /** Attempts in all, the first included (2 or more to retry at all); at most 10. */
  readonly maxAttempts: number;
  /** The wait before the first retry; doubled after each one. */
  readonly initialDelayMs: number;
  /** The longest wait between attempts. Default 10 000. */
  readonly maxDelayMs?: number;
  /** How much of each wait is random (0 to 1): each wait is cut by up to this share. Default 0.2. */
  readonly jitterRatio?: number;
  /** Lets `callTool` retry a call whose outcome is unknown (a tool may not be idempotent). Default false. */
  readonly retryNonIdempotent?: boolean;
}

/** The bounds of one operation of `agent.mcp` or `McpClientManager`. */
export interface McpOperationOptions {
  /** Aborts the operation; an aborted operation is never retried. */
  readonly signal?: AbortSignal;
  /** Per-request timeout, reset by progress; default the server's or `mcp.operation`'s. */
  readonly timeoutMs?: number;
  /** Total deadline of one request whatever progress says. */
  readonly maxTotalTimeoutMs?: number;
  readonly retry?: McpRetryOptions;
}

/** The options of a direct `callTool`: an operation's bounds, and progress. */
export interface McpCallToolOptions extends McpOperationOptions {
  /**
   * Called with each progress notification of the call. Given, the call asks the server for
   * progress, and each notification resets its `timeoutMs` (never `maxTotalTimeoutMs`), as
   * for a model's call in a run. A callback that throws does not change the call.
   */
  readonly onProgress?: (progress: ToolProgress) => void;
}

/** The options of a direct `callTool` that takes a task for an answer (SPEC 15.3). */
export interface McpCallToolTaskOptions extends McpCallToolOptions {
  /**
   * Give a handle instead of waiting for the result: the server's task when it makes one of
   * the call, or a completed handle when it answers at once.
   */
  readonly task: true;
}

/** A task's status as `McpTaskHandle.status()` reports it. */
export interface McpTaskState {
  /** `working`, `input_required`, `completed`, `failed` or `cancelled`. */
  readonly status: string;
  /** The server's message for this status, its secrets masked. */
  readonly statusMessage?: string;
}

/**
 * A call a host made with `{ task: true }` (SPEC 15.3): the task the server made of it, or
 * the result it answered at once (then `taskId` is undefined and the handle is completed).
 */
export interface McpTaskHandle {
  /** The server's task id; undefined when the server answered at once. */
  readonly taskId: string | undefined;
  /**
   * The task's status now (one `tasks/get`), or its last known status once it has ended;
   * `completed` for a call answered at once.
   */
  status(): Promise<McpTaskState>;
  /**
   * The call's result: the task is polled to its end (at most one poll loop, however often
   * this is called) and settles as a direct call would; a failed task rejects with
   * `TOOL_EXECUTION_FAILED`, a cancelled handle with `TOOL_OUTCOME_UNKNOWN`.
   */
  result(): Promise<CallToolResult>;
  /**
   * Sends `tasks/cancel` once (an abort of the call's `signal` does too) and resolves when
   * the server acknowledged it. Cancellation is cooperative: the outcome is unknown.
   */
  cancel(): Promise<void>;
}

/**
 * Whose sign-in `authenticate`, `submitOAuthCallback` and `logout` act on (SPEC 15.4).
 */
export interface McpSignInOptions {
  /**
   * The user (principal) whose tokens, waiting login and logout these are: 1 to 256
   * characters with no control characters. Absent: the local user, whose tokens are the ones
   * stored before principals existed.
   */
  readonly principal?: string;
}

/** One server's outcome of `connectAll()`. */
export interface McpConnectionSummary {
  readonly name: string;
  readonly status: string;
  readonly error?: { readonly code: string; readonly message: string };
}

/** What `getConnection(name)` reports: local facts, no I/O, no secrets. */
export interface McpConnectionInfo {
  readonly name: string;
  readonly status: string;
  readonly era?: 'modern' | 'legacy';
  readonly protocolVersion?: string;
  readonly serverInfo?: {
    readonly name: string;
    readonly version: string;
    readonly title?: string;
  };
  readonly capabilities?: Readonly<Record<string, unknown>>;
  /** The server's instructions; never put into a system prompt by Muster. */
  readonly instructions?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

/** A notification a `listen()` stream delivers. */
export interface McpNotice {
  readonly server: string;
  /** The principal whose own connection the notification came on (SPEC 15.4); none: a shared one. */
  readonly principal?: string;
  /** `notifications/tools/list_changed`, `notifications/resources/updated`, … */
  readonly method: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** What to listen for (the modern `subscriptions/listen` filter). */
export interface McpListenFilter {
  readonly toolsListChanged?: boolean;
  readonly promptsListChanged?: boolean;
  readonly resourcesListChanged?: boolean;
  readonly resourceSubscriptions?: readonly string[];
}

/** An open `listen()` stream. */
export interface McpListenSubscription {
  readonly events: AsyncIterable<McpNotice>;
  /** Ends the stream (and the server-side subscription on a modern connection). Idempotent. */
  close(): Promise<void>;
}

/**
 * What `diagnostics(name)` reports about a stdio server's latest process, for the host only:
 * never put into events, statuses or errors.
 */
export interface McpServerDiagnostics {
  readonly name: string;
  /** The last bytes the process wrote to stderr, redacted with the server's secrets. */
  readonly stderrTail: string;
  /** How the process ended, once it has. */
  readonly exit?: { readonly code: number | null; readonly signal: string | null };
}
