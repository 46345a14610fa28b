/**
 * The JSON the studio's HTTP API speaks: the one contract between the server (`src/studio/`)
 * and the page (`studio-ui/`), which imports these types only (docs/studio.md).
 *
 * Every route is under `/api`, answers JSON, and needs the studio cookie. A POST or DELETE
 * also needs an `Origin` equal to the studio's own and `Content-Type: application/json`.
 * A failure is `{ error: { code, message } }` with a 4xx or 5xx status; `code` is a
 * `MusterError` code (or `STUDIO_FORBIDDEN` / `STUDIO_NOT_FOUND` for the studio's own checks).
 * `STUDIO_APP_INVALID` (502): a tool's MCP Apps view that the studio refuses to show.
 */
import type { AgentEvent } from '../agent/index.js';
import type { McpServerDiagnostics, McpServerStatus } from '../mcp/index.js';
import type { AuthorizationRequest, DecisionKind } from '../policy/index.js';
import type {
  FleetJob,
  FleetState,
  SessionBudget,
  WaitDecision,
  WaitKind,
} from '../session/index.js';

/**
 * The studio's own error codes (the others are `MusterError` codes): `STUDIO_FORBIDDEN` (403,
 * a security check refused the request), `STUDIO_NOT_FOUND` (404, no such route, approval or
 * elicitation), `STUDIO_BAD_REQUEST` (400, the body is not the JSON the route takes),
 * `ELICITATION_CONTENT_INVALID` (400, an accepted form answer does not match the server's
 * `requestedSchema`; `issues` says where) and `STUDIO_NOT_BUILT` (503, the page's files are
 * missing).
 */
export type StudioErrorCode =
  | 'STUDIO_FORBIDDEN'
  | 'STUDIO_NOT_FOUND'
  | 'STUDIO_BAD_REQUEST'
  | 'ELICITATION_CONTENT_INVALID'
  | 'STUDIO_NOT_BUILT';

/** A failed request: the body of every 4xx and 5xx answer. */
export interface StudioErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    /** For `TOOL_ARGUMENTS_INVALID` / elicitation answers: what is wrong, per field path. */
    readonly issues?: readonly { readonly path: string; readonly message: string }[];
    /** For a tool call the policy refused (403): what it decided, at which stage. */
    readonly decision?: CallToolResponse['decision'];
  };
}

/** `GET /api/info`: what the studio runs with (no secrets, no paths). */
export interface StudioInfo {
  readonly version: string;
  /** The provider and model of `--model`, e.g. `scripted` / `openai:gpt-5-mini`; absent without one. */
  readonly model?: string;
  /** `sqlite`, `memory`, `postgres`. */
  readonly store: string;
  /** Whether MCP Apps views are rendered (the client capability is advertised). */
  readonly apps: boolean;
}

/** `GET /api/servers`: the agent's `mcp.list()` snapshot, one entry per server. */
export type ServersResponse = readonly McpServerStatus[];

/**
 * `GET /api/servers/<name>/diagnostics`: the agent's `mcp.diagnostics(name)`, the redacted
 * stderr tail and exit of a stdio server's latest process (empty for other transports), so
 * the Servers page can show why a server that crashed at start failed.
 */
export type ServerDiagnosticsResponse = McpServerDiagnostics;

/** `POST /api/servers`: register a server at run time (validated like `muster mcp add`). */
export interface RegisterServerBody {
  readonly name: string;
  /** An `McpServerConfig` (stdio, http, sse) as JSON. */
  readonly config: Readonly<Record<string, unknown>>;
}

/** `GET /api/servers/:name/tools`: the server's tools as listed (`tools/list`). */
export interface ToolView {
  /** The name on the server. */
  readonly name: string;
  /** The model-facing name (`mcp__<server>__<tool>`). */
  readonly modelName: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
  /** The `ui://` view the tool declares (MCP Apps), when it does. */
  readonly uiResourceUri?: string;
  /** `model`, `app` or both (MCP Apps visibility); absent means both. */
  readonly visibility?: readonly ('model' | 'app')[];
}

/** `POST /api/servers/:name/tools/:tool/call`: one call through the studio's policy. */
export interface CallToolBody {
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Set by an MCP Apps view's `tools/call`: the call may reach app-only tools. */
  readonly fromApp?: boolean;
  /**
   * The page's id for this call (1-64 of `A-Z a-z 0-9 _ -`): when the call waits for an
   * approval, the pending approval's `request.callId` is this id, so the page can link to it.
   */
  readonly callId?: string;
}

/** A tool result as the page renders it. */
export interface ToolResultView {
  readonly isError: boolean;
  /** The result's content blocks, as the server sent them (text, image, resource, link…). */
  readonly content: readonly Readonly<Record<string, unknown>>[];
  readonly structuredContent?: unknown;
  /**
   * The raw `CallToolResult`, for MCP Apps views (`ui/notifications/tool-result`). When the
   * raw result is over 1 MiB (`rawOmitted`), a stand-in: its `content` is the preview only.
   */
  readonly raw: Readonly<Record<string, unknown>>;
  /**
   * Set when the result was archived as in a run (its projection over
   * `mcp.archiveThresholdBytes`, or media): the text the model would read (a preview and a
   * note per archived item). `content` then keeps only the blocks that are not text.
   */
  readonly preview?: string;
  /** The archived items, each paged with `GET /api/sessions/:sessionId/archive/:ref`. */
  readonly archived?: readonly ArchivedRefView[];
  /** Set when `raw` is a stand-in: the raw result was this many bytes of JSON. */
  readonly rawOmitted?: { readonly bytes: number };
}

/** One archived item of a tool result: where to page it, and how big it is. */
export interface ArchivedRefView {
  readonly ref: string;
  /** The session whose archive holds it (refs are valid there only). */
  readonly sessionId: string;
  readonly kind: 'text' | 'binary';
  readonly mimeType: string;
  readonly totalBytes: number;
}

/**
 * `GET /api/sessions/:id/archive/:ref?offset=&length=`: one page of an archived item
 * (`length` at most 65536, default 65536). `text` for a text item, `data` (base64) for a
 * binary one; `nextOffset` is absent on the last page. An unknown ref, or one of another
 * session, is 404 `STUDIO_NOT_FOUND`.
 */
export interface ArchivePageResponse {
  readonly ref: string;
  readonly mimeType: string;
  readonly offset: number;
  readonly length: number;
  readonly totalBytes: number;
  readonly nextOffset?: number;
  readonly text?: string;
  readonly data?: string;
}

/**
 * `GET /api/sessions/:id/archive?callId=`: the archived items of a session (of one call of
 * it with `callId`), oldest first, without their payloads.
 */
export interface ArchiveListResponse {
  readonly items: readonly (ArchivedRefView & {
    readonly callId: string;
    readonly toolName: string;
  })[];
}

/** The answer of a call: what the policy decided, then the result when it ran. */
export interface CallToolResponse {
  readonly decision: {
    readonly decision: DecisionKind | 'park';
    readonly stage: string;
    readonly reason?: string;
  };
  readonly result?: ToolResultView;
  /** How long the call took, without the time it waited for an approval. */
  readonly durationMs: number;
}

/** `GET /api/servers/:name/resources` (+ `?cursor=`). */
export interface ResourcesResponse {
  readonly resources: readonly Readonly<Record<string, unknown>>[];
  readonly templates: readonly Readonly<Record<string, unknown>>[];
}

/** `GET /api/servers/:name/resource?uri=<uri>`: the `resources/read` result. */
export interface ReadResourceResponse {
  readonly contents: readonly Readonly<Record<string, unknown>>[];
}

/** `POST /api/servers/:name/complete`: `completion/complete`. */
export interface CompleteBody {
  readonly ref:
    | { readonly type: 'ref/resource'; readonly uri: string }
    | { readonly type: 'ref/prompt'; readonly name: string };
  readonly argument: { readonly name: string; readonly value: string };
  readonly context?: { readonly arguments?: Readonly<Record<string, string>> };
}

/** The completion values. */
export interface CompleteResponse {
  readonly values: readonly string[];
  readonly total?: number;
  readonly hasMore?: boolean;
}

/** `POST /api/servers/:name/subscriptions` `{ uri }`; `DELETE` the same with `?uri=`. */
export interface SubscribeBody {
  readonly uri: string;
}

/** The answer of `POST` and `DELETE /api/servers/:name/subscriptions`. */
export interface SubscriptionResponse {
  readonly uri: string;
  /** Whether updates of `uri` now arrive as `resource.updated` events. */
  readonly subscribed: boolean;
}

/** One live resource subscription of the studio. */
export interface SubscriptionView {
  readonly server: string;
  readonly uri: string;
}

/**
 * `GET /api/subscriptions`: the subscriptions the studio holds now, whoever made them (a
 * reload or a second tab shows the same state). One ends by `DELETE`, or on its own when the
 * server's stream ends (then `resource.subscription.ended` is published).
 */
export interface SubscriptionsResponse {
  readonly subscriptions: readonly SubscriptionView[];
}

/** `GET /api/servers/:name/prompts`. */
export interface PromptsResponse {
  readonly prompts: readonly Readonly<Record<string, unknown>>[];
}

/** `POST /api/servers/:name/prompts/:prompt` `{ arguments }`: the `prompts/get` result. */
export interface GetPromptBody {
  readonly arguments?: Readonly<Record<string, string>>;
}

/** `POST /api/servers/:name/signin`: starts OAuth; the page opens `authUrl` (a link). */
export interface SignInResponse {
  readonly authUrl?: string;
  readonly requiresUserAction: boolean;
}

/** `GET /api/sessions` (+ `?cursor=`): past sessions of the store, newest first. */
export interface SessionsResponse {
  readonly sessions: readonly SessionSummaryView[];
  readonly nextCursor?: string;
}

/** One session in the list. */
export interface SessionSummaryView {
  readonly id: string;
  readonly status: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The first user message, cut to 200 characters. */
  readonly title?: string;
}

/** `GET /api/sessions/:id`: the stored session (messages as stored; media left out). */
export interface SessionView extends SessionSummaryView {
  readonly messages: readonly Readonly<Record<string, unknown>>[];
  /** Token usage over the session's runs; `costUsd` when the model had a price. */
  readonly usage?: Readonly<Record<string, unknown>>;
  readonly finalContent?: string;
  /** The latest run's budget (SPEC 15.4): its limits and what it spent, when it had one. */
  readonly budget?: SessionBudget;
}

/** `POST /api/runs`: starts a run; its events arrive on `/api/events`. */
export interface StartRunBody {
  readonly prompt: string;
  /** Continue this session (or start one with this id). */
  readonly sessionId?: string;
  /** The model name for this run (the provider is the studio's `--model`). */
  readonly modelName?: string;
}

/** The started run. */
export interface StartRunResponse {
  readonly sessionId: string;
}

/**
 * `POST /api/runs/:sessionId/resume`: continues a parked session in the studio (its events
 * arrive on `/api/events` like those of a run started here). Answers {@link StartRunResponse}.
 */
export type ResumeRunResponse = StartRunResponse;

/** `POST /api/runs/:sessionId/cancel`: aborts the session's live run. */
export type CancelRunResponse = { readonly cancelled: boolean };

/** A call waiting for a person: `GET /api/approvals`, and `approval.pending` events. */
export interface PendingApproval {
  readonly id: string;
  /** The exact request the policy asks about (arguments included, never secrets). */
  readonly request: AuthorizationRequest;
  readonly createdAt: string;
}

/** `POST /api/approvals/:id`: the answer. `redirect` needs a `message`. */
export interface ApprovalAnswerBody {
  readonly decision: DecisionKind;
  readonly reason?: string;
  readonly message?: string;
}

/** A server's question waiting for a person: `GET /api/elicitations`, and events. */
export interface PendingElicitation {
  readonly id: string;
  readonly server: string;
  readonly mode: 'form' | 'url';
  readonly message: string;
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** URL mode: shown as a link, never opened by the studio. */
  readonly url?: string;
  readonly sessionId?: string;
  readonly createdAt: string;
}

/** `POST /api/elicitations/:id`: validated against `requestedSchema` on the server too. */
export interface ElicitationAnswerBody {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Readonly<Record<string, unknown>>;
}

/**
 * A wait of a parked run (SPEC 15.1) as stored, whichever process parked it: `GET
 * /api/waits`. Never carries the protocol state a server asked to be sent back.
 */
export interface ParkedWait {
  readonly id: string;
  readonly sessionId: string;
  /** The run that parked on it. */
  readonly runId: string;
  readonly kind: WaitKind;
  readonly callId?: string;
  /** The model-facing tool name. */
  readonly toolName?: string;
  readonly server?: string;
  /** Approvals: the exact arguments that will run once allowed. */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** Why it waits (an approval's reason) or what is asked (an elicitation's message). */
  readonly message?: string;
  /** Elicitation forms: the schema the answer must match. */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** URL elicitations: shown as a link, never opened by the studio. */
  readonly url?: string;
  /**
   * The principal the run acts for (SPEC 15.4): of an `auth` wait, whom the sign-in is for
   * (an id, never a token); absent: the local user.
   */
  readonly principal?: string;
  /** Auth waits: the authorization server the principal signs in with, when known. */
  readonly issuer?: string;
  /** Task waits: the MCP task the call became, as last polled. */
  readonly task?: TaskWaitView;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601; absent: it never expires. */
  readonly expiresAt?: string;
  /** What the decision is bound to: send it back with the decision. */
  readonly fingerprint: string;
  readonly status: 'pending' | 'decided';
  /** A pending wait past `expiresAt`: it can no longer be decided; resuming decides it. */
  readonly expired: boolean;
  readonly decision?: WaitDecision;
  /** ISO 8601, when decided. */
  readonly decidedAt?: string;
}

/**
 * The MCP task a `task` wait holds (SPEC 15.3), as the run last saw it: no secret, the
 * server's own words (its status message) masked as the run masked them.
 */
export interface TaskWaitView {
  readonly taskId: string;
  /** `working`, `input_required`… as last polled. */
  readonly status: string;
  readonly statusMessage?: string;
  /** The server's `createdAt` (ISO 8601). */
  readonly createdAt: string;
  /** When the task answer was read (ISO 8601): its ttl counts from here. */
  readonly acceptedAt: string;
  /** When `status` was last read with `tasks/get` (ISO 8601); absent: not polled yet. */
  readonly polledAt?: string;
  /** The last `ttlMs` the server gave; `null`: no limit. */
  readonly ttlMs: number | null;
  /** `acceptedAt + ttlMs` (ISO 8601): after it the task's outcome is unknown. */
  readonly ttlEndsAt?: string;
  readonly pollIntervalMs?: number;
}

/**
 * `GET /api/waits?kind=&status=&sessionId=&cursor=&limit=`: one page of the store's waits
 * (by session id, then wait id; `limit` 1 to 1000, default 100).
 */
export interface WaitsResponse {
  readonly waits: readonly ParkedWait[];
  readonly nextCursor?: string;
}

/**
 * `POST /api/waits/:sessionId/:waitId`: decides a wait with the fingerprint the page showed
 * (a wait that changed since is 409 `WAIT_STALE`; one decided, expired or gone is 404
 * `WAIT_NOT_FOUND`). An approval takes `{ decision, reason?, message? }` (`redirect` needs
 * `message`), a form `{ action, content? }`, a task wait `{ decision: 'cancel', reason? }`
 * (409 `SESSION_ALREADY_RUNNING` while a run polls the task: cancel that run instead). Then
 * `POST /api/runs/:sessionId/resume`: a cancelled task's resume sends its `tasks/cancel` once.
 */
export type DecideWaitBody = { readonly fingerprint: string } & (
  | {
      readonly decision: 'allow' | 'deny' | 'redirect';
      readonly reason?: string;
      readonly message?: string;
    }
  | {
      readonly decision: 'cancel';
      readonly reason?: string;
    }
  | {
      readonly action: 'accept' | 'decline' | 'cancel';
      readonly content?: Readonly<Record<string, unknown>>;
    }
);

/** The decided wait. */
export interface DecideWaitResponse {
  readonly wait: ParkedWait;
}

/**
 * One session of the fleet (SPEC 15.5) as `GET /api/fleet` lists it: `running` while a live
 * lease holds it (`holder`: the run that took it; `job`: the worker's job), `queued` while a
 * job of the workers' queue waits for it (its session may not exist yet: `input` is the
 * queued request's), `parked` while it waits on its `pendingWaits` (its `job`: the resume
 * due at their expiry).
 */
export interface FleetSessionView {
  readonly sessionId: string;
  readonly state: FleetState;
  /** The stored status; absent for a queued run not started yet. */
  readonly status?: string;
  readonly updatedAt?: string;
  readonly holder?: string;
  readonly leaseExpiresAt?: string;
  readonly pendingWaits?: readonly WaitKind[];
  readonly job?: FleetJob;
  /** A queued start job's input, cut to 200 characters. */
  readonly input?: string;
}

/**
 * `GET /api/fleet?state=queued|running|parked`: where the store's sessions stand across
 * processes, at most 100 per state. On the PostgreSQL store it reads the leases, the waits
 * and the workers' pg-boss queue (read only; `queue` names it, `found: false` when its
 * schema has no queue yet: then nothing is queued). On another store: runs by their status,
 * parked sessions with their waits, nothing queued (`queue` absent).
 */
export interface FleetResponse {
  readonly sessions: readonly FleetSessionView[];
  readonly queue?: { readonly name: string; readonly schema: string; readonly found: boolean };
  /**
   * True when a state had more than 100 sessions (the rest are left out), or (a store
   * without `fleet()`) a parked session more than 1000 pending waits.
   */
  readonly truncated: boolean;
}

/** `POST /api/servers/:name/tools/:tool/app`: a one-time URL for the tool's MCP Apps view. */
export interface AppViewResponse {
  readonly resourceUri: string;
  /** `/apps/view/<nonce>`: serves the view's HTML once, under the CSP its resource declares. */
  readonly viewUrl: string;
  /** The iframe `allow` attribute built from the resource's permissions ('' for none). */
  readonly allow: string;
  readonly prefersBorder?: boolean;
}

/**
 * One message on `GET /api/events` (Server-Sent Events, `event: <kind>`, `data: <json>`).
 * The stream starts with a `hello` carrying the pending approvals and elicitations and the
 * live runs.
 */
export type StudioEvent =
  | {
      readonly kind: 'hello';
      readonly approvals: readonly PendingApproval[];
      readonly elicitations: readonly PendingElicitation[];
      /**
       * The sessions with a live run in the studio now. A page that reconnects marks any
       * other run it still shows as running as ended (its `run.ended` came while it was away)
       * and reads the session again.
       */
      readonly runs: readonly string[];
    }
  | { readonly kind: 'agent'; readonly event: AgentEvent }
  | { readonly kind: 'servers'; readonly servers: ServersResponse }
  | { readonly kind: 'approval.pending'; readonly approval: PendingApproval }
  | {
      readonly kind: 'approval.resolved';
      readonly id: string;
      readonly decision: DecisionKind | 'cancelled';
    }
  | {
      /** A wait of a parked run was decided from the studio (any tab). */
      readonly kind: 'wait.decided';
      readonly wait: ParkedWait;
    }
  | { readonly kind: 'elicitation.pending'; readonly elicitation: PendingElicitation }
  | { readonly kind: 'elicitation.resolved'; readonly id: string; readonly action: string }
  | { readonly kind: 'resource.updated'; readonly server: string; readonly uri: string }
  | {
      /** A subscription the server side ended (its connection went away or closed the stream). */
      readonly kind: 'resource.subscription.ended';
      readonly server: string;
      readonly uri: string;
      /** Why, when known: the error code (`MCP_DISCONNECTED`, say). */
      readonly reason?: string;
    }
  | {
      readonly kind: 'run.ended';
      readonly sessionId: string;
      /** `completed`, `failed`, `cancelled`, or `parked` (it waits on a decision again). */
      readonly status: string;
      /** Why a `failed` run failed (`{ code, message }` only). */
      readonly error?: { readonly code: string; readonly message: string };
    };
