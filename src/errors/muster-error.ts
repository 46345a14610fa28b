import type {
  McpErrorCode,
  ModelErrorCode,
  MusterErrorCode,
  SessionErrorCode,
  ToolErrorCode,
} from './error-codes.js';

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

/** Safe, secret-free facts about a failure: names, counts, codes, never headers or tokens. */
export type MusterErrorDetails = Readonly<Record<string, unknown>>;

/** Options accepted by every Muster error constructor. */
export interface MusterErrorOptions {
  /** Secret-free facts about the failure. */
  readonly details?: MusterErrorDetails;
  /** The underlying failure, kept for diagnostics. */
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
export class MusterError extends Error {
  /** The stable code of this failure. */
  readonly code: MusterErrorCode;
  /** Secret-free facts about the failure. */
  readonly details: MusterErrorDetails;
  private readonly [MUSTER_ERROR_BRAND] = true;

  constructor(code: MusterErrorCode, message: string, options: MusterErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MusterError';
    this.code = code;
    this.details = options.details ?? {};
  }

  /** True for any Muster error, even one created by another copy of this package. */
  static isInstance(value: unknown): value is MusterError {
    return hasBrand(value, MUSTER_ERROR_BRAND);
  }

  /** A plain, serializable view of the error (code, message, details). */
  toJSON(): { name: string; code: MusterErrorCode; message: string; details: MusterErrorDetails } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/** A failure of one tool call. It reaches the model as an error result. */
export class ToolError extends MusterError {
  declare readonly code: ToolErrorCode;
  /** The model-facing name of the tool, when known. */
  readonly toolName: string | undefined;
  private readonly [TOOL_ERROR_BRAND] = true;
  constructor(
    code: ToolErrorCode,
    message: string,
    options: MusterErrorOptions & { toolName?: string } = {},
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
export class McpError extends MusterError {
  declare readonly code: McpErrorCode;
  /** The server's registry name, when known. */
  readonly server: string | undefined;
  private readonly [MCP_ERROR_BRAND] = true;
  constructor(
    code: McpErrorCode,
    message: string,
    options: MusterErrorOptions & { server?: string } = {},
  ) {
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
export class ModelError extends MusterError {
  declare readonly code: ModelErrorCode;
  /** HTTP status of the provider's answer, when there was one. */
  readonly status: number | undefined;
  /** Whether a later attempt might succeed (rate limits, 5xx, connection resets). */
  readonly isRetryable: boolean;
  private readonly [MODEL_ERROR_BRAND] = true;
  constructor(
    code: ModelErrorCode,
    message: string,
    options: MusterErrorOptions & { status?: number; isRetryable?: boolean } = {},
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
export class SessionError extends MusterError {
  declare readonly code: SessionErrorCode;
  /** The session concerned. */
  readonly sessionId: string;
  private readonly [SESSION_ERROR_BRAND] = true;
  constructor(
    code: SessionErrorCode,
    message: string,
    options: MusterErrorOptions & { sessionId: string },
  ) {
    super(code, message, options);
    this.name = 'SessionError';
    this.sessionId = options.sessionId;
  }

  /** True for a `SessionError` (and only for one), even from another copy of this package. */
  static override isInstance(value: unknown): value is SessionError {
    return hasBrand(value, SESSION_ERROR_BRAND);
  }
}
