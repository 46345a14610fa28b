import type {
  McpErrorCode,
  ModelErrorCode,
  MusterErrorCode,
  SessionErrorCode,
  ToolErrorCode,
} from './error-codes.js';

// `details.reason` is a typed fact: one literal tuple per code family, the union derived from
// it, so a producer cannot misspell a reason and a `switch` over one can be exhaustive. A
// family's reasons may be carried by any code of the family; the code says what failed, the
// reason says why.

/**
 * Why Muster itself failed an MCP request at the transport; call errors are classified on
 * these, never on message text:
 * - `response-too-large`: the transport refused a response over `mcp.maxResponseBytes` (or a
 *   stdio server's `maxBufferSize`): the server ran the request; its answer was too large;
 * - `not-sent`: the request was never handed to the server (the connection was closed, or
 *   could not be made);
 * - `redirect`: the server answered with a redirect, which Muster refuses: it did not run the
 *   request (it pointed elsewhere), so the request counts as not sent;
 * - `stream-lost`: the transport can no longer deliver the answer of a request it sent (the
 *   response stream broke, the connection closed, the process exited);
 * - `timed-out`: a deadline Muster enforces passed (`details.limit` names the option, such as
 *   `maxTotalTimeoutMs` or `connectTimeoutMs`, and `details.limitMs` its value).
 */
export const MCP_TRANSPORT_FAILURE_REASONS = [
  'response-too-large',
  'not-sent',
  'redirect',
  'stream-lost',
  'timed-out',
] as const;

/** One of {@link MCP_TRANSPORT_FAILURE_REASONS}. */
export type McpTransportFailureReason = (typeof MCP_TRANSPORT_FAILURE_REASONS)[number];

/**
 * Why an OAuth step failed, carried by an `MCP_AUTH_REQUIRED` error:
 * - `login-required`: no valid token and no silent way to get one (sign in);
 * - `insufficient-scope`: the server wants more scopes (`403 insufficient_scope`);
 * - `state-mismatch`, `issuer-mismatch`, `duplicate-parameter`, `wrong-destination`,
 *   `invalid-callback`: a callback URL that Muster refused;
 * - `no-login`: a callback with no login waiting for it (finished, cancelled or timed out);
 * - `authorization-denied`: the authorization server answered with an error;
 * - `origin-not-allowed`, `insecure-url`, `redirect-refused`: a request OAuth refused to make;
 * - `login-timeout`, `login-cancelled`: the login ended before its callback;
 * - `token-request-failed`: discovery, registration or the token endpoint failed.
 */
export const OAUTH_FAILURE_REASONS = [
  'login-required',
  'insufficient-scope',
  'state-mismatch',
  'issuer-mismatch',
  'duplicate-parameter',
  'wrong-destination',
  'invalid-callback',
  'no-login',
  'authorization-denied',
  'origin-not-allowed',
  'insecure-url',
  'redirect-refused',
  'login-timeout',
  'login-cancelled',
  'token-request-failed',
] as const;

/** One of {@link OAUTH_FAILURE_REASONS}. */
export type OAuthFailureReason = (typeof OAUTH_FAILURE_REASONS)[number];

/**
 * Every reason of the `MCP_*` codes: the transport's ({@link MCP_TRANSPORT_FAILURE_REASONS}),
 * OAuth's ({@link OAUTH_FAILURE_REASONS}), and:
 * - `spawn-failed`: a stdio server's process could not be started (`details.field` names the
 *   declaration field to fix, `command` or `cwd`; `details.errno` the system's code);
 * - `unsafe-url`: a URL elicitation whose URL is not https (or loopback http), not shown;
 * - `invalid-answer`: an elicitation answer refused before it reached the server;
 * - `queue-overflow`: a `listen()` stream had too many unread notices and was closed;
 * - `pin-not-offered`: the server does not offer the protocol version `mcp.protocol` pins
 *   (`MCP_CONNECTION_FAILED`, `details.pin` names it): a legacy server, for a modern pin;
 * - `invalid-response`: the server's answer is no valid response to the request (a task
 *   answered on a connection that did not offer the Tasks extension, a task without its id).
 */
export const MCP_FAILURE_REASONS = [
  ...MCP_TRANSPORT_FAILURE_REASONS,
  ...OAUTH_FAILURE_REASONS,
  'spawn-failed',
  'unsafe-url',
  'invalid-answer',
  'queue-overflow',
  'pin-not-offered',
  'invalid-response',
] as const;

/** The `details.reason` of an `MCP_*` error: one of {@link MCP_FAILURE_REASONS}. */
export type McpFailureReason = (typeof MCP_FAILURE_REASONS)[number];

/**
 * Why the outcome of a tool call is unknown (`TOOL_OUTCOME_UNKNOWN`): the call may have run.
 * - `timeout`: a deadline passed (`details.limit` and `details.limitMs` name it);
 * - `disconnected`: the connection was lost after the call was sent;
 * - `aborted`: the caller's signal aborted the call (a call that had become a task: its
 *   `tasks/cancel` was sent, at most once and not retried; cancellation is cooperative);
 * - `task-expired`: the call became a task (SPEC 15.3) that was still not done when its
 *   `createdAt + ttlMs` passed;
 * - `task-not-found`: the call became a task whose id the server no longer knows (it answered
 *   `tasks/get` with `-32602`);
 * - `unknown`: a failure with no typed fact that says more.
 */
export const TOOL_OUTCOME_UNKNOWN_REASONS = [
  'timeout',
  'disconnected',
  'aborted',
  'task-expired',
  'task-not-found',
  'unknown',
] as const;

/** One of {@link TOOL_OUTCOME_UNKNOWN_REASONS}. */
export type ToolOutcomeUnknownReason = (typeof TOOL_OUTCOME_UNKNOWN_REASONS)[number];

/**
 * Every reason of the `TOOL_*` codes: {@link TOOL_OUTCOME_UNKNOWN_REASONS}, and:
 * - `not-sent`: the call never reached the server (`TOOL_EXECUTION_FAILED`): it did not run,
 *   and sending it again cannot run it twice;
 * - `response-too-large`: the server answered with a result over the byte limit
 *   (`TOOL_RESULT_TOO_LARGE`): the tool ran;
 * - `output-invalid`: the server answered with a result whose `structuredContent` does not
 *   match the tool's `outputSchema`, or is missing (`TOOL_EXECUTION_FAILED`, with
 *   `details.executed: true`): the tool ran, its result is invalid;
 * - `input-state-too-large`: a server's `input_required` state (`requestState`) was over
 *   `mcp.maxResponseBytes` (`TOOL_EXECUTION_FAILED`): nothing was parked or sent back;
 * - `input-rounds-exceeded`: a server still asked for input after 10 rounds;
 * - `no-input-handler`: a server asked for input no `mcp.handlers` entry answers;
 * - `task-failed`: the call became a task that ended `failed` (`details.protocolCode` is its
 *   JSON-RPC error's code, when the server gave one);
 * - `task-cancelled`: the call became a task that the server ended `cancelled`.
 */
export const TOOL_FAILURE_REASONS = [
  'not-sent',
  'response-too-large',
  'output-invalid',
  'input-state-too-large',
  'input-rounds-exceeded',
  'no-input-handler',
  'task-failed',
  'task-cancelled',
  ...TOOL_OUTCOME_UNKNOWN_REASONS,
] as const;

/** The `details.reason` of a `TOOL_*` error: one of {@link TOOL_FAILURE_REASONS}. */
export type ToolFailureReason = (typeof TOOL_FAILURE_REASONS)[number];

/** The reasons of the `MODEL_*` codes: none yet (`status` and `isRetryable` say what failed). */
export const MODEL_FAILURE_REASONS = [] as const;

/** The `details.reason` of a `MODEL_*` error: one of {@link MODEL_FAILURE_REASONS}. */
export type ModelFailureReason = (typeof MODEL_FAILURE_REASONS)[number];

/**
 * Why a session store failed (`SESSION_STORE_FAILED`), decided on the driver's typed facts
 * (a SQLite result code, a PostgreSQL SQLSTATE, a Node.js errno code, whether the folder
 * exists), never its message text; `details.store` names the store (`sqlite`, `postgres`) and
 * `details.storeCode` the driver's code:
 * - `folder-missing`: the SQLite file's folder does not exist (create it);
 * - `not-permitted`: the file or folder cannot be opened or written (`SQLITE_CANTOPEN`,
 *   `SQLITE_PERM`, `SQLITE_READONLY`), or the PostgreSQL role lacks a privilege (`42501`);
 * - `locked`: another connection holds the SQLite file locked past the busy timeout
 *   (`SQLITE_BUSY`, `SQLITE_LOCKED`);
 * - `corrupt`: the file is not a SQLite database or is damaged (`SQLITE_NOTADB`,
 *   `SQLITE_CORRUPT`): restore it from a backup;
 * - `disk-full`: no space is left for the file or the database (`SQLITE_FULL`, `53100`);
 * - `server-unreachable`: no connection to the PostgreSQL server (`ECONNREFUSED`,
 *   `ETIMEDOUT`, `EHOSTUNREACH`, `ENETUNREACH`, `ECONNRESET`, SQLSTATE class `08`, `57P03`);
 * - `host-not-found`: the connection string's host name does not resolve (`ENOTFOUND`,
 *   `EAI_AGAIN`);
 * - `auth-failed`: the server refused the user or its password (`28000`, `28P01`);
 * - `database-missing`: the connection string's database does not exist (`3D000`).
 */
export const SESSION_FAILURE_REASONS = [
  'folder-missing',
  'not-permitted',
  'locked',
  'corrupt',
  'disk-full',
  'server-unreachable',
  'host-not-found',
  'auth-failed',
  'database-missing',
] as const;

/** The `details.reason` of a `SESSION_*` error: one of {@link SESSION_FAILURE_REASONS}. */
export type SessionFailureReason = (typeof SESSION_FAILURE_REASONS)[number];

/**
 * Why a session store's optional driver cannot serve (`INVALID_CONFIGURATION`, with
 * `details.driver` naming it), decided on the driver's typed facts, never its message text:
 * - `driver-missing`: the package (`better-sqlite3`, `pg`) is not installed
 *   (`ERR_MODULE_NOT_FOUND`, `MODULE_NOT_FOUND`);
 * - `driver-not-built`: `better-sqlite3` is installed without its native binary (the
 *   `bindings` lookup's `tries`);
 * - `driver-abi-mismatch`: `better-sqlite3`'s native binary does not load in this Node.js
 *   (`ERR_DLOPEN_FAILED`: built for another Node.js version, platform or architecture).
 */
export const DRIVER_FAILURE_REASONS = [
  'driver-missing',
  'driver-not-built',
  'driver-abi-mismatch',
] as const;

/** One of {@link DRIVER_FAILURE_REASONS}. */
export type DriverFailureReason = (typeof DRIVER_FAILURE_REASONS)[number];

/**
 * The reasons of the codes outside the prefixed families: {@link DRIVER_FAILURE_REASONS}, and:
 * - `token-file-corrupt`: the token file is not a version-1 credentials document
 *   (`INVALID_CONFIGURATION`; `details.problem` says what is wrong, never quoting the file);
 * - `minimum-over-limit`: the smallest allowed model request is over a context limit
 *   (`AGENT_LIMIT_EXCEEDED`);
 * - `summarizer-failed`, `summary-empty`, `summary-too-long`: `context.summarize` threw,
 *   returned no text, or keeps returning a summary too long to fit (`AGENT_LIMIT_EXCEEDED`);
 * - `output-not-json`, `output-schema-mismatch`: a typed final answer that is not JSON, or
 *   whose JSON the output schema refuses, after every repair turn (`OUTPUT_INVALID`,
 *   `details.issues` lists what is wrong);
 * - `wait-unknown`, `wait-decided`, `wait-expired`: `WAIT_NOT_FOUND` for a wait that does not
 *   exist, was already decided, or expired;
 * - `agent-closed`: `ABORTED` because the agent (or a child agent) was closed, not because a
 *   caller gave up: a call that became an MCP task is not cancelled for it (SPEC 15.3).
 */
export const RUNTIME_FAILURE_REASONS = [
  ...DRIVER_FAILURE_REASONS,
  'output-not-json',
  'output-schema-mismatch',
  'wait-unknown',
  'wait-decided',
  'wait-expired',
  'agent-closed',
  'token-file-corrupt',
  'minimum-over-limit',
  'summarizer-failed',
  'summary-empty',
  'summary-too-long',
] as const;

/**
 * The `details.reason` of an error with a code outside the prefixed families: one of
 * {@link RUNTIME_FAILURE_REASONS}.
 */
export type RuntimeFailureReason = (typeof RUNTIME_FAILURE_REASONS)[number];

/** The reasons an error with code `C` may carry: those of `C`'s family. */
export type ReasonOf<C extends MusterErrorCode> = C extends ToolErrorCode
  ? ToolFailureReason
  : C extends McpErrorCode
    ? McpFailureReason
    : C extends ModelErrorCode
      ? ModelFailureReason
      : C extends SessionErrorCode
        ? SessionFailureReason
        : RuntimeFailureReason;

/**
 * True when `value` is one of `reasons`: reads a reason that crossed a boundary (a cause
 * chain, a stored status) as typed again.
 */
export function isReasonIn<const R extends readonly string[]>(
  reasons: R,
  value: unknown,
): value is R[number] {
  return typeof value === 'string' && (reasons as readonly string[]).includes(value);
}
