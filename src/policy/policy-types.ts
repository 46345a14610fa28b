import type { Pattern } from './pattern.js';

/** Advisory tool annotations as policy sees them (never used to authorize). */
export interface PolicyToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * What a connection request will start or reach, for the person who approves it: the stdio
 * command, arguments and working directory as declared, the NAMES of the env variables, the
 * URL without credentials, query or fragment, and the NAMES of the headers. Never a value of
 * an env variable, a header or a token.
 */
export interface ConnectionSummary {
  /** `stdio`, `http`, `sse` or `sdk`. */
  readonly transport: string;
  /** Where the declaration came from: `project`, `user`, `options` (the constructor) or `runtime`. */
  readonly configSource: string;
  /** The executable that is spawned (stdio). */
  readonly command?: string;
  /** Its arguments, exactly as declared (stdio). */
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** The names of the variables added to the environment (stdio), never their values. */
  readonly envKeys?: readonly string[];
  /** Origin and path of the server (http, sse): no credentials, query or fragment. */
  readonly url?: string;
  /** The names of the declared headers (http, sse), never their values. */
  readonly headerNames?: readonly string[];
  /** How it authenticates (http), when declared: `bearer` or `provider`, never the token. */
  readonly auth?: string;
  /** The launcher every stdio command runs under (`mcp.sandbox`), when there is one. */
  readonly sandbox?: { readonly command: string; readonly args?: readonly string[] };
  /**
   * A fingerprint of the whole normalized declaration, values included (which it never
   * reveals), valid in this process: a rule or approver that remembers an approval keys it
   * by this, so a server re-declared under the same name with another command, URL, env or
   * header value is asked about again.
   */
  readonly fingerprint: string;
}

/**
 * One thing to authorize: a tool call, a connection to an MCP server (capability
 * `mcp_connect:<server>`), or a server's sampling request of the agent's model
 * (`mcp_sampling:<server>`, the request in `arguments` for the approver). Never carries the
 * values of headers, env variables or tokens (a connection shows their names only).
 */
export interface AuthorizationRequest {
  readonly kind: 'tool' | 'connection' | 'sampling';
  /** The tool's model-facing name, or `mcp_connect:<server>`. */
  readonly capability: string;
  /** The model-facing tool name (tool requests only). */
  readonly toolName?: string;
  /** Where the tool comes from: `host`, `mcp`, `builtin` or `executor`. */
  readonly source?: string;
  /** The MCP server concerned. */
  readonly server?: string;
  /** The tool's own name on its server. */
  readonly originalName?: string;
  /** The exact arguments that will run (tool requests only). */
  readonly arguments?: Readonly<Record<string, unknown>>;
  readonly annotations?: PolicyToolAnnotations;
  /** Safe metadata the tool source exposes for rules. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** What the connection will start or reach (connection requests only). */
  readonly connection?: ConnectionSummary;
  readonly sessionId: string;
  readonly runId: string;
  /** The user the run acts for (SPEC 15.4); absent for the local user. */
  readonly principal?: string;
  readonly callId?: string;
  readonly iteration?: number;
}

/** What a rule or an approver decides. */
export type DecisionKind = 'allow' | 'deny' | 'redirect';

/**
 * A decision with its reason; `redirect` needs a non-empty `message` (the new instruction).
 * An approver may also answer `park` (SPEC 15.1): the run parks on an approval wait that any
 * process decides later (rules cannot park).
 */
export interface PolicyDecision {
  readonly decision: DecisionKind | 'park';
  readonly reason?: string;
  readonly message?: string;
  /** Safe metadata a rule wants observers to see. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A host rule: returns a decision, or `undefined` to abstain. The first decision wins. */
export interface AuthorizationRule {
  readonly id: string;
  authorize(
    request: AuthorizationRequest,
  ): DecisionKind | PolicyDecision | undefined | Promise<DecisionKind | PolicyDecision | undefined>;
}

/** The approver's answer: `true` allows, `false` denies, or a full decision. */
export type ApprovalAnswer = boolean | PolicyDecision;

/** Asks a human or a service whether a call may run. Must observe `signal`. */
export type Approver = (
  request: AuthorizationRequest,
  signal: AbortSignal,
) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** The stage of the pipeline that made a decision. */
export type DecisionStage = 'hook' | 'deny' | 'rule' | 'allow' | 'default' | 'approval';

/**
 * A final decision with where it came from. `park`: the call waits for a decision taken
 * outside the run (an approver answered `park`, or `policy.park` with no approver).
 */
export interface AuthorizationDecision {
  readonly decision: DecisionKind | 'park';
  readonly stage: DecisionStage;
  readonly reason?: string;
  readonly ruleId?: string;
  readonly message?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** For denials: `TOOL_APPROVAL_REQUIRED` when `ask` had no approver, else `TOOL_DENIED`. */
  readonly code?: 'TOOL_DENIED' | 'TOOL_APPROVAL_REQUIRED';
}

/** What the policy observer receives for every final decision: never the arguments. */
export interface AuthorizationEvent {
  readonly kind: 'tool' | 'connection' | 'sampling';
  readonly capability: string;
  readonly toolName?: string;
  readonly source?: string;
  readonly server?: string;
  readonly sessionId: string;
  readonly runId: string;
  /** The user the run acts for (SPEC 15.4); absent for the local user. */
  readonly principal?: string;
  readonly callId?: string;
  readonly stage: DecisionStage;
  readonly decision: DecisionKind | 'park';
  readonly reason?: string;
  readonly ruleId?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly dryRun: boolean;
}

/** The policy options of an agent (SPEC section 5). */
export interface PolicyOptions {
  /** What the model sees; absent means every tool. Invisible tools cannot be called. */
  readonly visibleTools?: readonly Pattern[];
  /** Always denied; wins over everything after it. */
  readonly deny?: readonly Pattern[];
  /** Host rules, in order; the first decision wins. */
  readonly rules?: readonly AuthorizationRule[];
  /** Pre-approved: runs without asking. */
  readonly allow?: readonly Pattern[];
  /** What happens to the rest: `ask` (default) calls `approve`, which must exist. */
  readonly default?: 'ask' | 'allow' | 'deny';
  readonly approve?: Approver;
  /**
   * `ask` with no approver parks the run on an approval wait instead of denying (SPEC 15.1);
   * the session store must keep waits.
   */
  readonly park?: boolean;
  /**
   * The version of this policy that approvals are bound to: a wait decided under another
   * version is void on resume. Absent: a hash of the policy's data (patterns, default,
   * `park`, rule ids).
   */
  readonly version?: string;
  /** Evaluate and report decisions without executing tools (connections are still enforced). */
  readonly dryRun?: boolean;
  /** Sees every final decision, never the arguments; cannot change outcomes. */
  readonly observer?: (event: AuthorizationEvent) => unknown;
}
