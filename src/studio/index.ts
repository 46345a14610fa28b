// The studio's face: `startStudio()` and its options. Route modules, queues and the security
// layer stay inside the folder.
import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import { MusterError } from '../errors/index.js';
import type { McpOptions, McpServerConfig } from '../mcp/index.js';
import type { ModelClient } from '../model/index.js';
import type { AuthorizationRule } from '../policy/index.js';
import type { SessionStore } from '../session/index.js';
import { musterHome } from '../util/index.js';
import { ApprovalQueue } from './approval-queue.js';
import { ElicitationQueue } from './elicitation-queue.js';
import type { StudioInfo } from './api-types.js';
import { createStudioApp } from './studio-app.js';
import { StudioEventHub } from './studio-events.js';
import { studioOAuthOptions } from './studio-oauth.js';
import { StudioRuns } from './studio-runs.js';
import { createStudioRuntime } from './studio-runtime.js';
import { newStudioToken, StudioSecurity } from './studio-security.js';
import { checkStudioHost, checkStudioPort, listenStudio, STUDIO_HOST } from './studio-server.js';

import { defaultUiDir } from './studio-static.js';

export type {
  StudioErrorCode,
  StudioErrorBody,
  StudioInfo,
  ServersResponse,
  ServerDiagnosticsResponse,
  RegisterServerBody,
  ToolView,
  CallToolBody,
  ToolResultView,
  CallToolResponse,
  ResourcesResponse,
  ReadResourceResponse,
  CompleteBody,
  CompleteResponse,
  SubscribeBody,
  PromptsResponse,
  GetPromptBody,
  SignInResponse,
  SessionsResponse,
  SessionSummaryView,
  SessionView,
  StartRunBody,
  StartRunResponse,
  CancelRunResponse,
  PendingApproval,
  ApprovalAnswerBody,
  PendingElicitation,
  ElicitationAnswerBody,
  ParkedWait,
  WaitsResponse,
  DecideWaitBody,
  DecideWaitResponse,
  ResumeRunResponse,
  AppViewResponse,
  StudioEvent,
} from './api-types.js';

/** What {@link startStudio} takes. The `muster studio` command builds it from its options. */
export interface StudioOptions {
  /** The model runs use; without one, starting a run fails (the rest of the studio works). */
  readonly model?: ModelClient;
  readonly modelName?: string;
  /** What `GET /api/info` calls the model (`openai:gpt-5-mini`); default its provider and name. */
  readonly modelLabel?: string;
  readonly system?: string;
  /** Where sessions live (default: a new memory store). */
  readonly sessionStore?: SessionStore;
  /** What `GET /api/info` calls the store: `sqlite`, `postgres`, `memory` (default). */
  readonly storeKind?: string;
  /** The project folder (`.muster/mcp.json`); default the current directory. */
  readonly workdir?: string;
  /** The user folder (`MUSTER_HOME`); default `MUSTER_HOME` or `~/.muster`. */
  readonly home?: string;
  /** Servers besides those of the project and user files. */
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  /** MCP options of the agent (the studio sets the elicitation handler and OAuth). */
  readonly mcp?: McpOptions;
  /** Tool patterns that run without asking (`--allow`). */
  readonly allow?: readonly string[];
  /** Tool patterns always refused (`--deny`). */
  readonly deny?: readonly string[];
  /** What happens to other calls (`--default`, default `ask`: the approvals queue). */
  readonly default?: 'ask' | 'allow' | 'deny';
  /**
   * How long a call waits on the approvals queue (default 30 minutes); nobody answering by
   * then denies it, with a reason that says so.
   */
  readonly approvalTimeoutMs?: number;
  /** Rules asked before the allow list. */
  readonly rules?: readonly AuthorizationRule[];
  /**
   * The policy's version (`policy.version`, SPEC 15.1): a run parked elsewhere and resumed
   * here keeps its decision only under the same version. Set it to the version the parking
   * hosts use; absent, a hash of the studio's policy data (patterns, default, rule ids).
   */
  readonly policyVersion?: string;
  /** Only `127.0.0.1` or `localhost`; anything else fails with `INVALID_CONFIGURATION`. */
  readonly host?: string;
  /** The port (default 0: a free one). */
  readonly port?: number;
  /** The studio token (default: a new random one); at least 32 URL-safe characters. */
  readonly token?: string;
  /** Origins OAuth may reach besides the server's own (`--allowed-origin`). */
  readonly allowedOrigins?: readonly string[];
  /** The built page's folder (default: `dist/studio-ui/` of the package). */
  readonly uiDir?: string;
  /**
   * Whether the page renders MCP Apps views (default true): the agent then advertises the
   * extension's client capability to servers, and `GET /api/info` reports it.
   */
  readonly apps?: boolean;
}

/** A running studio. */
export interface RunningStudio {
  /** `http://127.0.0.1:<port>/?token=<token>`: print it once, it signs the browser in. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** Cancels runs and pending questions, closes the streams, the server and the agent. Idempotent. */
  close(): Promise<void>;
}

const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/**
 * Starts the studio (SPEC 12a): listens on 127.0.0.1, then builds the agent (OAuth needs the
 * real port for its callback) and serves the API and the page.
 *
 * @example
 * ```ts
 * const studio = await startStudio({ model, mcpServers, allow: ['mcp_connect:*'] });
 * console.log(studio.url);
 * await studio.close();
 * ```
 */
export async function startStudio(options: StudioOptions = {}): Promise<RunningStudio> {
  checkStudioHost(options.host);
  const port = checkStudioPort(options.port);
  const token = options.token ?? newStudioToken();
  if (!/^[A-Za-z0-9_-]{32,}$/.test(token)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'The studio token must be at least 32 URL-safe characters (letters, digits, - and _).',
    );
  }
  let app: Hono | undefined;
  const server = await listenStudio(
    (request, env) =>
      app?.fetch(request, env) ?? new Response('The studio is starting.', { status: 503 }),
    port,
  );
  const origin = `http://${STUDIO_HOST}:${server.port}`;
  const hub = new StudioEventHub();
  const controller = new AbortController();
  let runtime: ReturnType<typeof createStudioRuntime> | undefined;
  let runs: StudioRuns | undefined;
  const close = async (): Promise<void> => {
    controller.abort();
    await runs?.close();
    await runtime?.agent.close().catch(() => undefined);
    await hub.close();
    await server.close();
  };
  try {
    const workdir = options.workdir ?? process.cwd();
    // the shutdown withdraws every waiting approval (a project server's connection included)
    const approvals = new ApprovalQueue(hub, {
      shutdown: controller.signal,
      ...(options.approvalTimeoutMs === undefined ? {} : { timeoutMs: options.approvalTimeoutMs }),
    });
    const elicitations = new ElicitationQueue(hub);
    const oauth = await studioOAuthOptions({
      workdir,
      home: options.home ?? musterHome(),
      origin,
      allowedOrigins: options.allowedOrigins ?? [],
    });
    runtime = createStudioRuntime({
      ...options,
      apps: options.apps !== false,
      workdir,
      oauth,
      approvals,
      elicitations,
      events: hub,
    });
    const live = new StudioRuns(runtime.agent, hub, options.model !== undefined);
    runs = live;
    hub.setLiveRuns(() => live.live());
    // a console shows where every server stands: connect them now, in the background (each
    // goes through mcp_connect; a project file's servers wait in the approvals queue)
    void runtime.agent.mcp.connectAll().catch(() => undefined);
    const info: StudioInfo = {
      version: VERSION,
      ...(options.model === undefined
        ? {}
        : { model: options.modelLabel ?? modelLabel(options.model, options.modelName) }),
      store: options.storeKind ?? 'memory',
      apps: options.apps !== false,
    };
    const ctx = {
      agent: runtime.agent,
      policy: runtime.policy,
      events: hub,
      approvals,
      elicitations,
      info,
      origin,
      signal: controller.signal,
    };
    app = createStudioApp({
      ctx,
      security: new StudioSecurity(server.port, token),
      hub,
      approvals,
      elicitations,
      runs,
      uiDir: options.uiDir ?? defaultUiDir(),
    });
  } catch (err) {
    await close();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port: server.port,
    close: () => (closing ??= close()),
  };
}

function modelLabel(model: ModelClient, modelName: string | undefined): string {
  const name = modelName ?? model.defaultModelName;
  return name === undefined || name === model.provider
    ? model.provider
    : `${model.provider}:${name}`;
}
