import type { McpOAuthServerOptions } from '../../auth/index.js';
import type { Pattern } from '../../policy/index.js';
import type { McpHandlers } from './handler-types.js';
import type { SdkMcpServer } from '../servers/sdk-server.js';

/** A local server spawned as a child process and spoken to over stdio (the default type). */
export interface McpStdioServerConfig {
  readonly type?: 'stdio';
  /** The executable; it is spawned without a shell. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Variables added to the safe default environment; nothing else is inherited. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The largest single message, in bytes, read from the child. Default `mcp.maxResponseBytes`. */
  readonly maxBufferSize?: number;
  /** The bound of a connect (protocol probe, spawn, handshake), in ms. Default 30 000. */
  readonly connectTimeoutMs?: number;
}

/**
 * Static or provider-based authentication of an HTTP server. With `perPrincipal: true` on the
 * declaration, `provider` is a function of the principal ({@link McpPrincipalAuthProvider}).
 */
export type McpAuth =
  | { readonly type: 'bearer'; readonly token: string }
  | { readonly type: 'provider'; readonly provider: object | McpPrincipalAuthProvider };

/**
 * The auth provider of a server declared with `perPrincipal: true` (SPEC 15.4): called once per
 * connection with the principal it is opened for (`undefined` for the local user, whose runs
 * name none), it returns an official `AuthProvider` (`token()`) or `OAuthClientProvider` for
 * that user only.
 */
export type McpPrincipalAuthProvider = (principal: string | undefined) => object;

/** A remote server over Streamable HTTP. */
export interface McpHttpServerConfig {
  readonly type: 'http';
  /** `https:`, or `http:` on loopback only; no credentials or fragment. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly auth?: McpAuth;
  /** Per-request timeout for this server, in milliseconds. */
  readonly timeoutMs?: number;
  /** The bound of a connect (protocol probe, handshake), in ms. Default 30 000. */
  readonly connectTimeoutMs?: number;
  /**
   * Connections and catalogs per principal (SPEC 15.4): a run acting for a principal uses a
   * connection of its own, authenticated by `auth.provider(principal)`. Needs
   * `auth: { type: 'provider', provider: (principal) => ... }`; for a server signed in with
   * `mcp.oauth`, set `mcp.oauth[name].perPrincipal` instead.
   */
  readonly perPrincipal?: boolean;
}

/** A remote server over the legacy HTTP+SSE transport (only when `mcp.transports` has `'sse'`). */
export interface McpSseServerConfig {
  readonly type: 'sse';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The bound of a connect (the event stream opened, the handshake), in ms. Default 30 000. */
  readonly connectTimeoutMs?: number;
}

/** An in-process server made with `createSdkMcpServer`. */
export interface McpSdkServerConfig {
  readonly type: 'sdk';
  readonly server: SdkMcpServer;
  /**
   * Call the server's tools directly, without a protocol round trip, when its definition needs
   * nothing of the protocol. Default true; `false` always connects over the in-memory transport.
   */
  readonly fastPath?: boolean;
}

/** One server declaration, discriminated on `type` (`stdio` when absent). */
export type McpServerConfig =
  | McpStdioServerConfig
  | McpHttpServerConfig
  | McpSseServerConfig
  | McpSdkServerConfig;

/** The transport kinds. */
export type McpTransportType = 'stdio' | 'http' | 'sse' | 'sdk';

/** Where a declaration came from. */
export type McpServerSource = 'project' | 'user' | 'options' | 'runtime';

/** How the protocol version is chosen. */
export interface McpProtocolPolicy {
  /**
   * `auto` (the default: over HTTP and SSE modern first, legacy fallback; a stdio server is
   * sent `initialize` first and stays legacy when it answers without declaring an extension,
   * which costs less per call, else goes modern), `legacy`, or one pinned version
   * (`{ pin: '2026-07-28' }` keeps such a stdio server modern).
   */
  readonly mode: 'auto' | 'legacy' | { readonly pin: string };
  /**
   * How long the protocol probe (`server/discover`) waits for an answer, in ms. Over stdio
   * (where the probe follows a refused `initialize` or a restart) a silent server then counts
   * as legacy; over HTTP the connect fails. Default 10 000, and
   * never longer than what is left of the server's `connectTimeoutMs`.
   */
  readonly probeTimeoutMs?: number;
  /** How many times a probe that got no answer is sent again before that verdict. Default 0. */
  readonly probeMaxRetries?: number;
}

/** A launcher that wraps every stdio command (for example a sandbox). */
export interface McpSandbox {
  readonly command: string;
  /** Arguments placed before the server's own command and arguments. */
  readonly args?: readonly string[];
}

/** Timeouts of MCP operations, in milliseconds. */
export interface McpOperationDefaults {
  /** Per-request timeout; progress notifications reset it. Default 60 000. */
  readonly timeoutMs?: number;
  /** Total deadline of one call whatever progress says. Default none. */
  readonly maxTotalTimeoutMs?: number;
}

/**
 * What happens when a live connection is lost (SPEC 7.4). Without `enabled`, a lost server
 * shows `failed` and is reconnected when it is next used (a run, an operation); with it, the
 * server shows `reconnecting` and is reconnected in the background at once, with backoff.
 */
export interface McpReconnectOptions {
  /**
   * Reconnect in the background right after a loss (exponential backoff with jitter), and
   * send a request that failed as not sent once more on the new connection. Default false.
   */
  readonly enabled?: boolean;
  /** Background attempts before the server is `failed` (1 to 100). Default 5. */
  readonly maxAttempts?: number;
  /** The wait before the first attempt, doubled after each one. Default 250. */
  readonly initialDelayMs?: number;
  /** The longest wait between attempts. Default 10 000. */
  readonly maxDelayMs?: number;
  /** How much of each wait is random (0 to 1). Default 0.2. */
  readonly jitterRatio?: number;
  /**
   * Ping idle connected servers this often (at least 100 ms), so a dead server is noticed
   * before a run needs it. Default none: no health checks.
   */
  readonly healthCheckIntervalMs?: number;
  /** How long a health check may take before the connection counts as lost. Default 5 000. */
  readonly healthCheckTimeoutMs?: number;
}

/** How Muster follows the tasks servers answer calls with (SPEC 15.3). */
export interface McpTasksOptions {
  /**
   * The shortest wait between two `tasks/get` of one task, whatever `pollIntervalMs` the
   * server asks for (a server asking for 0 is polled at this pace). Default 250.
   */
  readonly minPollIntervalMs?: number;
  /**
   * The longest wait between two `tasks/get` of one task, whatever the server asks for (a
   * server asking for a day is polled at this pace). Default 5 000; at least
   * `minPollIntervalMs`.
   */
  readonly maxPollIntervalMs?: number;
  /**
   * How long a run polls a task before it parks (SPEC 15.3): a call still a `working` task
   * after this parks the run with a `task` wait that stores the task's handle; `resume()`, on
   * any process with the same store, polls it again (at once; counted from when the task was
   * accepted, so a resume after this long polls once and parks again while the task still
   * works; a worker queues that resume at the task's next poll). Only where the session store
   * keeps waits (elsewhere the run polls on). Default 30 000.
   */
  readonly parkAfterMs?: number;
}

/** MCP options of an agent (SPEC section 7). */
export interface McpOptions {
  /** Skip the project and user files entirely. */
  readonly strictConfig?: boolean;
  /** Only these process and remote servers may connect; others show as `disabled`. */
  readonly allowedServers?: readonly string[];
  /** Which transport types are allowed at all. Default `['stdio', 'http', 'sdk']`. */
  readonly transports?: readonly McpTransportType[];
  /** How many servers connect at once. Default 4. */
  readonly startupConcurrency?: number;
  readonly protocol?: McpProtocolPolicy;
  /** `safe` (default) gives tools that do not fit safe names; `strict` rejects the server. */
  readonly names?: 'safe' | 'strict';
  /**
   * Response bytes accepted before parsing: per HTTP response or SSE event, and per stdio
   * message (a server's own `maxBufferSize` wins). Default 8 MiB.
   */
  readonly maxResponseBytes?: number;
  readonly sandbox?: McpSandbox;
  /** Results larger than this (JSON projection, bytes) are archived. Default 16 KiB. */
  readonly archiveThresholdBytes?: number;
  readonly operation?: McpOperationDefaults;
  /** Reconnects and health checks of lost connections. */
  readonly reconnect?: McpReconnectOptions;
  /** Client-side handlers; the capabilities declared are derived from them. */
  readonly handlers?: McpHandlers;
  /**
   * Client extensions to advertise to every server, as `capabilities.extensions` of the
   * connection, keyed by extension identifier. Declare only what the host honours: e.g. MCP
   * Apps is `{ 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } }`,
   * which `muster studio` sets because it renders the views. Default none.
   */
  readonly clientExtensions?: Readonly<Record<string, object>>;
  /**
   * The most connections to servers that authenticate per principal (`perPrincipal`) open at
   * once across the agent, every server and principal counted (SPEC 15.4). When all are taken,
   * the least recently used idle one is closed; with none idle, a call waits for one (bounded
   * by its run's signal). 1 to 10 000; default 64.
   */
  readonly maxPrincipalConnections?: number;
  /**
   * How long a principal's connection may stay unused before it is closed, in ms. Default
   * 300 000 (5 minutes).
   */
  readonly principalIdleMs?: number;
  /** Offer the model built-in tools to list and read resources of connected servers. Default false. */
  readonly exposeResources?: boolean;
  /** The most tokens a sampling request may ask of the agent's model. Default 4096. */
  readonly samplingMaxTokens?: number;
  /** How long a handler may take before the server is answered with an error. Default 60 000. */
  readonly handlerTimeoutMs?: number;
  /**
   * OAuth per remote server name (SPEC section 8): an entry applies to the `http` server of
   * that name, checked against its declaration when the server is registered.
   */
  readonly oauth?: Readonly<Record<string, McpOAuthServerOptions>>;
  /**
   * Tool search for large catalogs (SPEC 4): `'auto'` (default) shows the model a built-in
   * `tool_search` tool instead of the MCP tool definitions when they are over
   * `toolSearchBudgetTokens`; `true` always does; `false` never does (every definition is sent).
   */
  readonly toolSearch?: 'auto' | boolean;
  /**
   * The most tokens of MCP tool definitions `'auto'` sends as they are (the context manager's
   * estimate). Default 10% of `context.maxTokens`.
   */
  readonly toolSearchBudgetTokens?: number;
  /** MCP tools (policy patterns) whose definitions are sent even when tool search is on. */
  readonly alwaysLoad?: readonly Pattern[];
  /** Tasks (the `io.modelcontextprotocol/tasks` extension, SPEC 15.3): how they are polled. */
  readonly tasks?: McpTasksOptions;
  /**
   * What a resumed run does with the MCP calls that were in flight when its process died
   * (SPEC 15.5): `'never'` (default) reports every one as `TOOL_OUTCOME_UNKNOWN`;
   * `'idempotent'` sends a call again, once, with the same arguments and idempotency key, when
   * its tool is annotated `idempotentHint` or `readOnlyHint` in the catalog the resumed run
   * has (the policy and hooks apply to that send as to any call); the others stay unknown.
   */
  readonly replay?: 'never' | 'idempotent';
}
