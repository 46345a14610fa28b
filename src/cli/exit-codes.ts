import type { MusterErrorCode } from '../errors/index.js';

/**
 * The `muster` command's exit codes (documented in `docs/cli.md`): one per family of
 * `MusterError` codes, so scripts can branch on the kind of failure without parsing text.
 */
export const EXIT_CODES = {
  /** Success. */
  ok: 0,
  /** Anything unexpected (`INTERNAL_ERROR`). */
  internal: 1,
  /** Bad usage or configuration: unknown option, bad name, invalid file (`INVALID_CONFIGURATION`). */
  usage: 2,
  /** An MCP server could not be reached or failed an operation (`MCP_*` but auth). */
  mcp: 3,
  /** A server needs a login (`MCP_AUTH_REQUIRED`): run `muster mcp auth <name>`. */
  auth: 4,
  /** The policy refused a call (`TOOL_DENIED`, `TOOL_APPROVAL_REQUIRED`). */
  denied: 5,
  /** A tool call failed (`TOOL_*` other than denials), or the registry was busy. */
  tool: 6,
  /** A session problem (`SESSION_*`), or a wait that cannot be decided (`WAIT_*`). */
  session: 7,
  /** The model provider failed (`MODEL_*`). */
  model: 8,
  /** A run limit was reached (`AGENT_LIMIT_EXCEEDED`). */
  limit: 9,
  /** The model's typed final answer stayed invalid after its repair turns (`OUTPUT_INVALID`). */
  output: 10,
  /** The run spent its budget (`BUDGET_EXHAUSTED`: `--max-cost`, `limits.max*`). */
  budget: 11,
  /** Interrupted (Ctrl-C) or aborted (`ABORTED`), as shells report SIGINT. */
  aborted: 130,
} as const;

/** One of {@link EXIT_CODES}' values. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The exit code of a failure with `code`. */
export function exitCodeOf(code: MusterErrorCode): ExitCode {
  switch (code) {
    case 'INVALID_CONFIGURATION':
      return EXIT_CODES.usage;
    case 'MCP_AUTH_REQUIRED':
      return EXIT_CODES.auth;
    case 'MCP_CONNECTION_FAILED':
    case 'MCP_DISCONNECTED':
    case 'MCP_OPERATION_FAILED':
    case 'MCP_EXTENSION_UNSUPPORTED':
      return EXIT_CODES.mcp;
    case 'TOOL_DENIED':
    case 'TOOL_APPROVAL_REQUIRED':
      return EXIT_CODES.denied;
    case 'TOOL_NOT_FOUND':
    case 'TOOL_ARGUMENTS_INVALID':
    case 'TOOL_RESULT_TOO_LARGE':
    case 'TOOL_EXECUTION_FAILED':
    case 'TOOL_OUTCOME_UNKNOWN':
    case 'TOOL_NAME_CONFLICT':
    case 'REGISTRY_BUSY':
      return EXIT_CODES.tool;
    case 'SESSION_ALREADY_RUNNING':
    case 'SESSION_NOT_FOUND':
    case 'SESSION_STORE_FAILED':
    case 'WAIT_NOT_FOUND':
    case 'WAIT_STALE':
    case 'PRINCIPAL_MISMATCH':
      return EXIT_CODES.session;
    case 'MODEL_REQUEST_FAILED':
    case 'MODEL_RESPONSE_INVALID':
      return EXIT_CODES.model;
    case 'AGENT_LIMIT_EXCEEDED':
      return EXIT_CODES.limit;
    case 'OUTPUT_INVALID':
      return EXIT_CODES.output;
    case 'BUDGET_EXHAUSTED':
      return EXIT_CODES.budget;
    case 'ABORTED':
      return EXIT_CODES.aborted;
    case 'INTERNAL_ERROR':
      return EXIT_CODES.internal;
  }
}
