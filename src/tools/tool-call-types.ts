import type { ToolErrorCode } from '../errors/index.js';
import type { ApprovalAnswer, CallPolicy } from '../policy/index.js';
import type { CatalogEntry, ToolCatalog } from './tool-catalog.js';
import type { ToolEvent } from './tool-events.js';
import type { AfterToolHook, BeforeToolHook } from './tool-hooks.js';
import type { ToolResult } from './tool-types.js';
import type { RunScope } from './run-scope.js';
import type { TraceContext } from '../util/index.js';
import type {
  DecidedBy,
  InputResumption,
  ParkedChild,
  ParkedInputs,
  ParkedTask,
  SentTask,
  TaskResumption,
} from './call-parking.js';

export type {
  ChildWait,
  DecidedBy,
  InputResumption,
  ParkedChild,
  ParkedInput,
  ParkedInputs,
  SentTask,
} from './call-parking.js';

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
  /** Levels of nesting a call's arguments may have (`limits.maxToolArgumentDepth`). */
  readonly maxToolArgumentDepth: number;
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
   * archiving a large result and replacing it with a preview and a reference. A step with
   * nothing to do returns the result itself, not a promise (no `await` on the call's path).
   */
  readonly finishResult?: (
    result: ToolResult,
    entry: CatalogEntry,
    call: ToolCallRequest,
  ) => ToolResult | PromiseLike<ToolResult>;
  /** The trace context of the call (set per call when the run is traced), for the tool. */
  readonly traceContext?: TraceContext;
  /** Parked runs (SPEC 15.1): decisions already taken, and whether a call may park. */
  readonly waits?: CallWaits;
}

/** A decision taken on a wait a call parked on, as the resumed run applies it. */
export interface WaitedDecision {
  /** What the approver would have answered. */
  readonly answer: ApprovalAnswer;
  readonly waitId: string;
  readonly reason?: string;
  /** ISO 8601. */
  readonly decidedAt?: string;
}

/** How a run's calls meet parking: the decisions taken while it waited, and whether it can park. */
export interface CallWaits {
  /** False when the session store keeps no waits: an approver's `park` denies the call. */
  readonly canPark: boolean;
  /**
   * The decision of a decided wait this call parked on, when its fingerprint is still
   * `fingerprint` (same arguments after hooks, tool definition and policy version).
   */
  decisionFor(callId: string, fingerprint: string): WaitedDecision | undefined;
  /**
   * The answers to a server's input requests this call parked on (`input_required`), when
   * every one is decided or expired and the call still hashes to their fingerprint
   * (`fingerprint` is computed only when the call has such waits). Undefined otherwise: the
   * call is then sent afresh.
   */
  inputFor(callId: string, fingerprint: () => string): InputResumption | undefined;
  /**
   * The session of the delegated run (`asTool`) this call parked on, whose waits were all
   * decided or expired, when the call still hashes to its links' fingerprint: the call
   * resumes that run instead of starting another.
   */
  childFor(callId: string, fingerprint: () => string): string | undefined;
  /**
   * The task this call became in an earlier run (its `task` wait): the call polls it on, and
   * is not sent again. Whatever the call's fingerprint now: the call was sent.
   */
  taskFor(callId: string): TaskResumption | undefined;
  /**
   * The task this call became in an earlier run, without taking it up: a call that was sent
   * is not checked again by the stages that decide whether to send it (visibility,
   * validation, hooks, policy); it polls its task on.
   */
  sentTask(callId: string): SentTask | undefined;
  /**
   * Stores the handle of the task `callId` just became (a `task` wait), before it is polled,
   * with the decided approval wait that let the call be sent (`approvedBy`), if any.
   */
  holdTask(
    callId: string,
    toolName: string,
    fingerprint: string,
    task: ParkedTask,
    approvedBy?: DecidedBy,
  ): Promise<void>;
  /** The run's session store (its identity): a delegated run parks the root only on the same one. */
  readonly store: object;
}

/**
 * A call that parked: at `ask` (an approval wait), or on a server's input requests (`input`,
 * elicitation waits). What its waits show and are bound to.
 */
export interface ParkedCall {
  /** sha-256 of the arguments, the tool definition and the policy version. */
  readonly fingerprint: string;
  /** The exact arguments that will run once allowed (after hooks). */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly server?: string;
  readonly reason?: string;
  /** Set when the call reached its server, which asked for input a person gives later. */
  readonly input?: ParkedInputs;
  /** Set when the call's delegated run parked (`asTool`): the root parks on links to its waits. */
  readonly child?: ParkedChild;
  /** Set when the call became an MCP task that still runs: one `task` wait holds its handle. */
  readonly task?: ParkedTask;
  /** The decided approval wait that let the call run before it parked on input or a child. */
  readonly approvedBy?: DecidedBy;
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
  /**
   * Set when the call parked (SPEC 15.1): it did not run and has no result yet; the run parks
   * once its turn's other calls are done.
   */
  readonly parked?: ParkedCall;
  /** Set when a decision taken on a wait decided this call: recorded with its result. */
  readonly decidedBy?: DecidedBy;
}

/** The call an event or outcome is about: its id and the name the model called. */
export type ToolCallRef = Pick<ToolCallRequest, 'callId' | 'name'>;

/** The run an event belongs to. */
export interface ToolEventScope {
  readonly sessionId: string;
  readonly runId: string;
}
