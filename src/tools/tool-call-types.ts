import type { ToolErrorCode } from '../errors/index.js';
import type { CallPolicy } from '../policy/index.js';
import type { CatalogEntry, ToolCatalog } from './tool-catalog.js';
import type { ToolEvent } from './tool-events.js';
import type { AfterToolHook, BeforeToolHook } from './tool-hooks.js';
import type { ToolResult } from './tool-types.js';
import type { RunScope } from './run-scope.js';
import type { TraceContext } from '../util/index.js';

/** One call the model asked for. */
export interface ToolCallRequest {
  readonly callId: string;
  readonly name: string;
  /** The raw JSON text of the arguments, as the model produced it. */
  readonly argumentsText: string;
  /**
   * `argumentsText` already parsed by the caller (the run loop parses it once for the
   * transcript): a deep-frozen JSON object, used instead of parsing the text again. Anything
   * else (absent, or the raw text of arguments that are not a JSON object) is ignored.
   */
  readonly arguments?: unknown;
  readonly iteration: number;
}

/** Everything the pipeline needs from its run. */
export interface ToolCallEnvironment {
  readonly sessionId: string;
  readonly runId: string;
  readonly signal: AbortSignal;
  readonly catalog: ToolCatalog;
  readonly policy: CallPolicy;
  readonly beforeTool: readonly BeforeToolHook[];
  readonly afterTool: readonly AfterToolHook[];
  readonly maxToolArgumentBytes: number;
  readonly maxToolResultBytes: number;
  readonly emit: (event: ToolEvent) => void;
  readonly onObserverError?: (err: unknown) => void;
  /**
   * The run's scope: each call's scope (its `ToolExecutionContext`) is derived from it. A
   * pipeline used outside an agent's run (a test, a benchmark) may leave it out: its calls
   * then get a scope of their own, reporting to `emit`.
   */
  readonly scope?: RunScope;
  /**
   * The last step before the result is reported, after the result limit: for example
   * archiving a large result and replacing it with a preview and a reference.
   */
  readonly finishResult?: (
    result: ToolResult,
    entry: CatalogEntry,
    call: ToolCallRequest,
  ) => Promise<ToolResult>;
  /** The trace context of the call (set per call when the run is traced), for the tool. */
  readonly traceContext?: TraceContext;
}

/** How one call ended. */
export interface ToolCallOutcome {
  readonly callId: string;
  readonly toolName: string;
  readonly result: ToolResult;
  readonly errorCode?: ToolErrorCode;
  readonly executed: boolean;
  /** Set when the policy redirected the call: the new user instruction. */
  readonly redirect?: string;
}

/** The call an event or outcome is about: its id and the name the model called. */
export type ToolCallRef = Pick<ToolCallRequest, 'callId' | 'name'>;

/** The run an event belongs to. */
export interface ToolEventScope {
  readonly sessionId: string;
  readonly runId: string;
}
