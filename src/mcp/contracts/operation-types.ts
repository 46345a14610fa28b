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
