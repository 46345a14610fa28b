import type {
  McpErrorCode,
  ModelErrorCode,
  MusterErrorCode,
  SessionErrorCode,
  ToolErrorCode,
} from './error-codes.js';
import type { ReasonOf } from './failure-reasons.js';
import { redactedCause } from './redacted-cause.js';

const MUSTER_ERROR_BRAND = Symbol.for('muster.error');
const TOOL_ERROR_BRAND = Symbol.for('muster.error.tool');
const MCP_ERROR_BRAND = Symbol.for('muster.error.mcp');
const MODEL_ERROR_BRAND = Symbol.for('muster.error.model');
const SESSION_ERROR_BRAND = Symbol.for('muster.error.session');

/** True when `value` is an object that carries `brand` (set by any copy of this package). */
function hasBrand(value: unknown, brand: symbol): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[brand] === true
  );
}

/**
 * Safe, secret-free facts about a failure: names, counts, codes, never headers or tokens.
 * `reason`, when there is one, is a literal of the code's family (a typo does not compile).
 */
export type MusterErrorDetails<C extends MusterErrorCode = MusterErrorCode> = Readonly<
  Record<string, unknown>
> & {
  /** Why it failed, as a typed fact of `C`'s family; hosts may `switch` on it. */
  readonly reason?: ReasonOf<C>;
};

/** Options accepted by every Muster error constructor; `details` are typed by the code. */
export interface MusterErrorOptions<C extends MusterErrorCode = MusterErrorCode> {
  /** Secret-free facts about the failure. */
  readonly details?: MusterErrorDetails<C>;
  /**
   * The underlying failure, kept for diagnostics as a redacted copy: anything shaped like a
   * credential is masked along its whole chain (a site that knows more secrets passes a copy
   * made with them, see `redactedCause`).
   */
  readonly cause?: unknown;
}

/**
 * The root of every error Muster raises. `code` is stable; `message` says what to do.
 *
 * @example
 * ```ts
 * try { await agent.send('hi'); }
 * catch (err) { if (MusterError.isInstance(err) && err.code === 'TOOL_DENIED') { ... } }
 * ```
 */
export class MusterError<C extends MusterErrorCode = MusterErrorCode> extends Error {
  /** The stable code of this failure. */
  readonly code: C;
  /** Secret-free facts about the failure. */
  readonly details: MusterErrorDetails<C>;
  private readonly [MUSTER_ERROR_BRAND] = true;

  constructor(code: C, message: string, options: MusterErrorOptions<C> = {}) {
    super(
      message,
      options.cause === undefined ? undefined : { cause: redactedCause(options.cause) },
    );
    this.name = 'MusterError';
    this.code = code;
    this.details = options.details ?? {};
  }

  /** True for any Muster error, even one created by another copy of this package. */
  static isInstance(value: unknown): value is MusterError {
    return hasBrand(value, MUSTER_ERROR_BRAND);
  }

  /** A plain, serializable view of the error (code, message, details). */
  toJSON(): { name: string; code: C; message: string; details: MusterErrorDetails<C> } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/** A failure of one tool call. It reaches the model as an error result. */
export class ToolError<C extends ToolErrorCode = ToolErrorCode> extends MusterError<C> {
  /** The model-facing name of the tool, when known. */
  readonly toolName: string | undefined;
  private readonly [TOOL_ERROR_BRAND] = true;
  constructor(
    code: C,
    message: string,
    options: MusterErrorOptions<C> & { toolName?: string } = {},
  ) {
    super(code, message, options);
    this.name = 'ToolError';
    this.toolName = options.toolName;
  }

  /** True for a `ToolError` (and only for one), even from another copy of this package. */
  static override isInstance(value: unknown): value is ToolError {
    return hasBrand(value, TOOL_ERROR_BRAND);
  }
}

/** A failure that concerns an MCP server. */
export class McpError<C extends McpErrorCode = McpErrorCode> extends MusterError<C> {
  /** The server's registry name, when known. */
  readonly server: string | undefined;
  private readonly [MCP_ERROR_BRAND] = true;
  constructor(code: C, message: string, options: MusterErrorOptions<C> & { server?: string } = {}) {
    super(code, message, options);
    this.name = 'McpError';
    this.server = options.server;
  }

  /** True for a `McpError` (and only for one), even from another copy of this package. */
  static override isInstance(value: unknown): value is McpError {
    return hasBrand(value, MCP_ERROR_BRAND);
  }
}

/** A failure of the model provider. `isRetryable` is derived from the provider's answer. */
export class ModelError<C extends ModelErrorCode = ModelErrorCode> extends MusterError<C> {
  /** HTTP status of the provider's answer, when there was one. */
  readonly status: number | undefined;
  /** Whether a later attempt might succeed (rate limits, 5xx, connection resets). */
  readonly isRetryable: boolean;
  private readonly [MODEL_ERROR_BRAND] = true;
  constructor(
    code: C,
    message: string,
    options: MusterErrorOptions<C> & { status?: number; isRetryable?: boolean } = {},
  ) {
    super(code, message, options);
    this.name = 'ModelError';
    this.status = options.status;
    this.isRetryable = options.isRetryable ?? false;
  }

  /** True for a `ModelError` (and only for one), even from another copy of this package. */
  static override isInstance(value: unknown): value is ModelError {
    return hasBrand(value, MODEL_ERROR_BRAND);
  }
}

/** A failure that concerns one session. */
export class SessionError<C extends SessionErrorCode = SessionErrorCode> extends MusterError<C> {
  /** The session concerned. */
  readonly sessionId: string;
  private readonly [SESSION_ERROR_BRAND] = true;
  constructor(code: C, message: string, options: MusterErrorOptions<C> & { sessionId: string }) {
    super(code, message, options);
    this.name = 'SessionError';
    this.sessionId = options.sessionId;
  }

  /** True for a `SessionError` (and only for one), even from another copy of this package. */
  static override isInstance(value: unknown): value is SessionError {
    return hasBrand(value, SESSION_ERROR_BRAND);
  }
}
