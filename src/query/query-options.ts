import type { AgentOptions, OutputRequest, Pricing } from '../agent/index.js';
import { MusterError } from '../errors/index.js';
import { isPrincipalId } from '../util/index.js';
import type { McpOptions, McpServerConfig, SdkMcpServer } from '../mcp/index.js';
import type { ModelClient } from '../model/index.js';
import { DEFAULT_CONTROL_REQUEST_TIMEOUT_MS } from './control-request.js';
import { permissionBridge } from './query-permissions.js';
import type { PermissionBridge } from './query-permissions.js';
import type { QueryCanUseTool, QueryOnElicitation, QueryOutputFormat } from './query-types.js';

/**
 * A server in `options.mcpServers`: a Muster declaration (`stdio`, `http`, `sse`,
 * `{ type: 'sdk', server }`), a server made by `createSdkMcpServer` as it is, or the
 * reference SDKs' `{ type: 'sdk', name, instance }` with a Muster server as `instance`.
 */
export type QueryMcpServerConfig =
  | McpServerConfig
  | SdkMcpServer
  | { readonly type: 'sdk'; readonly name: string; readonly instance: SdkMcpServer };

/** What `query()` takes besides the prompt. Unknown keys fail with `INVALID_CONFIGURATION`. */
export interface QueryOptions {
  /** The model (a Muster `ModelClient`); required. */
  readonly model?: ModelClient;
  readonly modelName?: string;
  readonly systemPrompt?: string;
  /** Where `.muster/mcp.json` is looked up (`workdir`). */
  readonly cwd?: string;
  /** Servers that connect without asking (`mcp_connect:<name>` is allowed for exactly these). */
  readonly mcpServers?: Readonly<Record<string, QueryMcpServerConfig>>;
  /** Visibility (`policy.visibleTools`). */
  readonly tools?: readonly string[];
  /** Pre-approval (`policy.allow`). */
  readonly allowedTools?: readonly string[];
  /** Always denied (`policy.deny`); wins over everything. */
  readonly disallowedTools?: readonly string[];
  /** Asked about every other call (`policy.approve`); without it they are denied. */
  readonly canUseTool?: QueryCanUseTool;
  /** Skip the project and user files (`mcp.strictConfig`). */
  readonly strictMcpConfig?: boolean;
  /** Only these process and remote servers may connect (`mcp.allowedServers`). */
  readonly allowedMcpServerNames?: readonly string[];
  /** Answers servers' elicitations (`mcp.handlers.elicitation`). */
  readonly onElicitation?: QueryOnElicitation;
  /** Bound of `canUseTool`, `onElicitation` and auth requests, in ms; 0: none. Default 60 000. */
  readonly controlRequestTimeoutMs?: number;
  /** OAuth per remote server (`mcp.oauth`). */
  readonly mcpOAuth?: McpOptions['oauth'];
  /** Muster's protocol choice (`mcp.protocol`; default `auto`). */
  readonly mcpProtocol?: McpOptions['protocol'];
  /** Model turns per user turn (`limits.maxIterations`). */
  readonly maxTurns?: number;
  /**
   * US dollars each user turn may spend (`limits.maxCostUsd`, SPEC 15.4), priced by
   * `pricing`: a turn that spends it ends with the `error_max_budget_usd` result.
   */
  readonly maxBudgetUsd?: number;
  /**
   * Prices per model name in US dollars per million tokens (the agent's `pricing`): results
   * report `total_cost_usd` with them; `maxBudgetUsd` needs the model's.
   */
  readonly pricing?: Pricing;
  /** Aborting it ends the query (the current turn fails with `ABORTED`). */
  readonly abortController?: AbortController;
  /** Continue this session id (same as `sessionId`). */
  readonly resume?: string;
  /** The session id of the query; a new one when absent. */
  readonly sessionId?: string;
  /**
   * The user every turn acts for (`run({ principal })`, SPEC 15.4): 1–256 characters, no
   * control characters; continuing a session needs the principal stored with it.
   */
  readonly principal?: string;
  /** Where sessions live (`sessionStore`; default a new in-memory store per query). */
  readonly sessionStore?: AgentOptions['sessionStore'];
  /**
   * A typed final answer for every turn (`run({ output: { schema } })`): the success
   * `result` carries it as `structured_output`.
   */
  readonly outputFormat?: QueryOutputFormat;
  /**
   * Yield `stream_event` messages (partial assistant messages: Anthropic raw stream events)
   * for the model's text and reasoning as they arrive, before each turn's `assistant`
   * message. Default false: none.
   */
  readonly includePartialMessages?: boolean;
}

const KNOWN: readonly (keyof QueryOptions)[] = [
  'model',
  'modelName',
  'systemPrompt',
  'cwd',
  'mcpServers',
  'tools',
  'allowedTools',
  'disallowedTools',
  'canUseTool',
  'strictMcpConfig',
  'allowedMcpServerNames',
  'onElicitation',
  'controlRequestTimeoutMs',
  'mcpOAuth',
  'mcpProtocol',
  'maxTurns',
  'maxBudgetUsd',
  'pricing',
  'abortController',
  'resume',
  'sessionId',
  'principal',
  'sessionStore',
  'outputFormat',
  'includePartialMessages',
];

const MAX_TIMER_MS = 2_147_483_647;

/** The options checked, with what the facade itself needs kept apart. */
export interface ResolvedQueryOptions {
  readonly agent: AgentOptions;
  readonly controlRequestTimeoutMs: number;
  readonly sessionId?: string;
  /** The user every turn acts for (`principal`). */
  readonly principal?: string;
  readonly modelName: string;
  readonly cwd: string;
  readonly abortSignal?: AbortSignal;
  readonly oauth: McpOptions['oauth'];
  /** What each turn's run asks for as `output` (from `outputFormat`). */
  readonly output?: OutputRequest;
  /** The `canUseTool` bridge, which a query continuing a parked session asks again. */
  readonly permissions: PermissionBridge;
  /** Whether turns yield `stream_event` messages (`includePartialMessages`). */
  readonly partialMessages: boolean;
}

function invalid(message: string): MusterError {
  return new MusterError('INVALID_CONFIGURATION', message);
}

function check(ok: boolean, key: string, what: string): void {
  if (!ok) throw invalid(`query() option '${key}' must be ${what}.`);
}

const isStrings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** Checks the shapes the facade reads; the agent checks the rest when it is created. */
function checkShapes(o: Record<string, unknown>): void {
  for (const key of Object.keys(o)) {
    if (!(KNOWN as readonly string[]).includes(key)) {
      throw invalid(
        `query() does not know the option '${key}'. Known options: ${KNOWN.join(', ')}.`,
      );
    }
  }
  const present = (k: string) => o[k] !== undefined;
  for (const k of ['tools', 'allowedTools', 'disallowedTools', 'allowedMcpServerNames'])
    if (present(k)) check(isStrings(o[k]), k, 'an array of strings');
  for (const k of ['canUseTool', 'onElicitation'])
    if (present(k)) check(typeof o[k] === 'function', k, 'a function');
  for (const k of ['modelName', 'systemPrompt', 'cwd', 'resume', 'sessionId'])
    if (present(k)) check(typeof o[k] === 'string' && o[k] !== '', k, 'a non-empty string');
  for (const k of ['strictMcpConfig', 'includePartialMessages'])
    if (present(k)) check(typeof o[k] === 'boolean', k, 'a boolean');
  if (present('controlRequestTimeoutMs')) {
    const t = o.controlRequestTimeoutMs;
    check(
      Number.isInteger(t) && (t as number) >= 0 && (t as number) <= MAX_TIMER_MS,
      'controlRequestTimeoutMs',
      `an integer from 0 (no bound) to ${MAX_TIMER_MS}`,
    );
  }
  if (present('maxTurns'))
    check(
      Number.isInteger(o.maxTurns) && (o.maxTurns as number) >= 1,
      'maxTurns',
      'an integer >= 1',
    );
  if (present('maxBudgetUsd')) {
    const b = o.maxBudgetUsd;
    check(
      typeof b === 'number' && Number.isFinite(b) && b > 0,
      'maxBudgetUsd',
      'a positive finite number of US dollars',
    );
    check(isObject(o.pricing), 'pricing', 'given with maxBudgetUsd: prices per model name');
  }
  if (present('abortController'))
    check(o.abortController instanceof AbortController, 'abortController', 'an AbortController');
  if (present('mcpServers'))
    check(
      typeof o.mcpServers === 'object' && o.mcpServers !== null && !Array.isArray(o.mcpServers),
      'mcpServers',
      'an object of server declarations by name',
    );
  if (present('principal')) {
    const problem = isPrincipalId(o.principal);
    if (problem) throw invalid(`query() option 'principal' ${problem}.`);
  }
  if (present('resume') && present('sessionId') && o.resume !== o.sessionId)
    throw invalid("query() options 'resume' and 'sessionId' name different sessions; give one.");
  if (present('outputFormat')) checkOutputFormat(o.outputFormat);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `outputFormat` must be `{ type: 'json_schema', schema: {...} }`; the run compiles the
 * schema itself (a schema that does not compile fails the turn with `INVALID_CONFIGURATION`).
 */
function checkOutputFormat(format: unknown): void {
  const what = "{ type: 'json_schema', schema: <a JSON Schema object> }";
  check(isObject(format), 'outputFormat', what);
  const f = format as Record<string, unknown>;
  const extra = Object.keys(f).filter((k) => k !== 'type' && k !== 'schema');
  if (extra.length > 0)
    throw invalid(`query() option 'outputFormat' has an unknown key '${extra[0]}': give ${what}.`);
  if (f.type !== 'json_schema')
    throw invalid(
      `query() option 'outputFormat' has type ${JSON.stringify(f.type)}; the only type is 'json_schema': give ${what}.`,
    );
  check(isObject(f.schema), 'outputFormat.schema', 'a JSON Schema object');
}

const SDK_SERVER = Symbol.for('muster.sdk-mcp-server');
const isSdkServer = (v: unknown): v is SdkMcpServer =>
  typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[SDK_SERVER] === true;

/** One `mcpServers` entry as a Muster declaration (the reference SDKs' sdk shape mapped). */
export function toMusterServer(name: string, config: QueryMcpServerConfig): McpServerConfig {
  if (isSdkServer(config)) return { type: 'sdk', server: config };
  const c = config as Partial<Record<string, unknown>>;
  if (c?.type === 'sdk' && 'instance' in c) {
    if (!isSdkServer(c.instance)) {
      throw invalid(
        `mcpServers.${name}: an sdk server's instance must be made by Muster's createSdkMcpServer().`,
      );
    }
    const { type: _t, name: _n, instance: _i, ...rest } = c;
    const extra = Object.keys(rest);
    if (extra.length > 0) throw invalid(`mcpServers.${name}: unknown key '${extra[0]}'.`);
    return { type: 'sdk', server: c.instance };
  }
  return config as McpServerConfig;
}

/**
 * Checks `query()` options and maps them onto `AgentOptions` (SPEC section 14): `tools` ->
 * `policy.visibleTools`, `allowedTools` (+ `mcp_connect:<name>` for each declared server) ->
 * `policy.allow`, `disallowedTools` -> `policy.deny`, `canUseTool` -> `policy.approve` (with a
 * `beforeTool` hook for `updatedInput`), `strictMcpConfig`, `allowedMcpServerNames`,
 * `onElicitation` and `mcpOAuth` -> `mcp`, `maxTurns` -> `limits.maxIterations`,
 * `maxBudgetUsd` -> `limits.maxCostUsd` (with `pricing`), `outputFormat` -> each run's `output`, `includePartialMessages` -> `stream_event` messages.
 */
export function resolveQueryOptions(
  options: QueryOptions | undefined,
  interrupt: () => void,
): ResolvedQueryOptions {
  const raw = (options ?? {}) as Record<string, unknown>;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw invalid('query() options must be an object.');
  checkShapes(raw);
  const o = raw as QueryOptions;
  if (!o.model) throw invalid('query() needs options.model (a Muster ModelClient).');
  const timeoutMs = o.controlRequestTimeoutMs ?? DEFAULT_CONTROL_REQUEST_TIMEOUT_MS;
  const servers = Object.entries(o.mcpServers ?? {});
  const mcpServers = Object.fromEntries(servers.map(([n, c]) => [n, toMusterServer(n, c)]));
  const permissions = permissionBridge({
    ...(o.canUseTool ? { canUseTool: o.canUseTool } : {}),
    ...(o.allowedTools ? { allowedTools: o.allowedTools } : {}),
    ...(o.disallowedTools ? { disallowedTools: o.disallowedTools } : {}),
    timeoutMs,
    interrupt,
  });
  const onElicitation = o.onElicitation;
  const mcp: McpOptions = {
    ...(o.strictMcpConfig !== undefined ? { strictConfig: o.strictMcpConfig } : {}),
    ...(o.allowedMcpServerNames ? { allowedServers: o.allowedMcpServerNames } : {}),
    ...(o.mcpOAuth ? { oauth: o.mcpOAuth } : {}),
    ...(o.mcpProtocol ? { protocol: o.mcpProtocol } : {}),
    // the reference SDKs take legacy SSE servers as they are: allow the transport when one is declared
    ...(Object.values(mcpServers).some((c) => c.type === 'sse')
      ? { transports: ['stdio', 'http', 'sdk', 'sse'] as const }
      : {}),
    ...(onElicitation
      ? {
          handlers: {
            elicitation: (request, origin) =>
              onElicitation(
                {
                  serverName: request.server,
                  message: request.message,
                  mode: request.mode,
                  ...(request.url !== undefined ? { url: request.url } : {}),
                  ...(request.elicitationId !== undefined
                    ? { elicitationId: request.elicitationId }
                    : {}),
                  ...(request.requestedSchema ? { requestedSchema: request.requestedSchema } : {}),
                },
                { signal: origin.signal },
              ),
          },
        }
      : {}),
    handlerTimeoutMs: timeoutMs === 0 ? MAX_TIMER_MS : timeoutMs,
  };
  const agent: AgentOptions = {
    model: o.model,
    ...(o.modelName ? { modelName: o.modelName } : {}),
    ...(o.systemPrompt ? { system: o.systemPrompt } : {}),
    ...(o.cwd ? { workdir: o.cwd } : {}),
    mcpServers,
    mcp,
    policy: {
      ...(o.tools ? { visibleTools: o.tools } : {}),
      ...(o.disallowedTools ? { deny: o.disallowedTools } : {}),
      allow: [...(o.allowedTools ?? []), ...servers.map(([n]) => `mcp_connect:${n}`)],
      default: 'ask',
      // without canUseTool, `ask` has no approver: such calls fail with TOOL_APPROVAL_REQUIRED
      ...(o.canUseTool ? { approve: permissions.approve } : {}),
    },
    ...(o.canUseTool ? { hooks: { beforeTool: permissions.beforeTool } } : {}),
    ...(o.maxTurns || o.maxBudgetUsd
      ? {
          limits: {
            ...(o.maxTurns ? { maxIterations: o.maxTurns } : {}),
            ...(o.maxBudgetUsd ? { maxCostUsd: o.maxBudgetUsd } : {}),
          },
        }
      : {}),
    ...(o.pricing ? { pricing: o.pricing } : {}),
    ...(o.sessionStore ? { sessionStore: o.sessionStore } : {}),
  };
  const sessionId = o.sessionId ?? o.resume;
  return {
    agent,
    controlRequestTimeoutMs: timeoutMs,
    ...(sessionId ? { sessionId } : {}),
    ...(o.principal !== undefined ? { principal: o.principal } : {}),
    modelName: o.modelName ?? o.model.defaultModelName ?? 'default',
    cwd: o.cwd ?? process.cwd(),
    ...(o.abortController ? { abortSignal: o.abortController.signal } : {}),
    oauth: o.mcpOAuth,
    ...(o.outputFormat ? { output: { schema: o.outputFormat.schema } } : {}),
    permissions,
    partialMessages: o.includePartialMessages === true,
  };
}
