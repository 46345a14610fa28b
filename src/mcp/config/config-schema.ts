import { MusterError } from '../../errors/index.js';
import { compilePattern } from '../../policy/index.js';
import { assertServerName } from '../../tools/index.js';
import { clientExtensionsCheck } from './client-capabilities.js';
import { checkProtocolPin } from './protocol-pins.js';
import type { McpOptions, McpServerConfig, McpServerSource } from '../contracts/config-types.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import {
  anyOf,
  arrayOf,
  boolean,
  byType,
  describeProblems,
  func,
  integer,
  is,
  number,
  object,
  oneOf,
  optional,
  problems,
  recordOf,
  string,
} from './config-checks.js';
import type { ConfigIssue } from './config-checks.js';
import { isSdkMcpServer } from '../servers/sdk-server.js';

/** The longest delay a Node timer honours; longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

const strings = recordOf(string({ min: 0, says: 'a string' }), 'an object of strings');
const timer = (min = 1) => optional(integer(min, MAX_TIMER_MS));
const connectTimeoutMs = timer();

const stdio = object({
  type: optional(oneOf(['stdio'])),
  command: string(),
  args: optional(arrayOf(string({ min: 0, says: 'a string' }))),
  env: optional(strings),
  cwd: optional(string()),
  maxBufferSize: optional(integer(1)),
  connectTimeoutMs,
});

const httpFields = {
  type: oneOf(['http']),
  url: string(),
  headers: optional(strings),
  timeoutMs: optional(integer(1, 86_400_000)),
  connectTimeoutMs,
};
const isObjectValue = (v: unknown) => typeof v === 'object' && v !== null;
const auth = byType({
  bearer: object({ type: oneOf(['bearer']), token: string() }),
  provider: object({
    type: oneOf(['provider']),
    provider: is(
      (v) => isObjectValue(v) || typeof v === 'function',
      'an AuthProvider or OAuthClientProvider (with perPrincipal: a function of the principal returning one)',
    ),
  }),
});
const http = object({ ...httpFields, auth: optional(auth), perPrincipal: optional(boolean) });
const httpFile = object(httpFields);
const sse = object({
  type: oneOf(['sse']),
  url: string(),
  headers: optional(strings),
  connectTimeoutMs,
});
const sdk = object({
  type: oneOf(['sdk']),
  server: is(isSdkMcpServer, 'a server made by createSdkMcpServer()'),
  fastPath: optional(boolean),
});

const root = object({
  uri: string({ pattern: /^file:\/\//, says: "a 'file://' URI" }),
  name: optional(string({ min: 0, says: 'a string' })),
});
const hasFunctions = (v: unknown, names: readonly string[]) =>
  isObjectValue(v) && names.every((m) => typeof (v as Record<string, unknown>)[m] === 'function');
const store = anyOf(
  [
    oneOf(['memory', 'file', 'keychain']),
    is((v) => hasFunctions(v, ['get', 'set', 'delete', 'update']), 'a TokenStore'),
  ],
  "'memory', 'file', 'keychain' or a TokenStore (get, set, delete, update)",
);
const oauthEntry = object({
  serverUrl: string(),
  allowedOrigins: arrayOf(string()),
  provider: optional(
    is(
      (v) => hasFunctions(v, ['tokens', 'clientInformation']),
      'an OAuthClientProvider (tokens(), clientInformation())',
    ),
  ),
  store: optional(store),
  authorize: optional(func),
  redirectUri: optional(string()),
  clientId: optional(string()),
  clientSecret: optional(string()),
  tokenEndpointAuthMethod: optional(oneOf(['client_secret_basic', 'client_secret_post'])),
  clientMetadataUrl: optional(string()),
  scope: optional(string()),
  grant: optional(oneOf(['authorization_code', 'client_credentials'])),
  privateKeyJwk: optional(
    object({ kty: string(), alg: optional(string({ min: 0, says: 'a string' })) }, true),
  ),
  expectedIssuer: optional(string()),
  stepUp: optional(boolean),
  timeoutMs: optional(integer(1, 600_000)),
  perPrincipal: optional(boolean),
});

/** A tool pattern as the policy compiles it (`mcp__srv__*`, `mcp__srv`, exact names). */
const policyPattern = is((v) => {
  if (typeof v !== 'string' || v.startsWith('mcp_connect:') || v.startsWith('mcp_sampling:'))
    return false;
  try {
    compilePattern(v);
    return true;
  } catch {
    return false;
  }
}, 'a tool pattern (a tool name, mcp__server__*, mcp__server or mcp__server__<tool>)');

const options = object({
  strictConfig: optional(boolean),
  allowedServers: optional(arrayOf(string({ min: 0, says: 'a string' }))),
  transports: optional(arrayOf(oneOf(['stdio', 'http', 'sse', 'sdk']))),
  startupConcurrency: optional(integer(1, 64)),
  protocol: optional(
    object({
      mode: anyOf(
        [
          oneOf(['auto', 'legacy']),
          object({ pin: string({ pattern: /^\d{4}-\d{2}-\d{2}$/, says: 'a YYYY-MM-DD version' }) }),
        ],
        "'auto', 'legacy' or { pin: 'YYYY-MM-DD' }",
      ),
      probeTimeoutMs: timer(),
      probeMaxRetries: optional(integer(0, 10)),
    }),
  ),
  names: optional(oneOf(['safe', 'strict'])),
  maxResponseBytes: optional(integer(1024)),
  sandbox: optional(
    object({
      command: string({ trim: true, says: 'a non-blank string' }),
      args: optional(arrayOf(string({ min: 0, says: 'a string' }))),
    }),
  ),
  archiveThresholdBytes: optional(integer(256)),
  operation: optional(object({ timeoutMs: timer(), maxTotalTimeoutMs: timer() })),
  reconnect: optional(
    object({
      enabled: optional(boolean),
      maxAttempts: optional(integer(1, 100)),
      initialDelayMs: timer(0),
      maxDelayMs: timer(0),
      jitterRatio: optional(number(0, 1)),
      healthCheckIntervalMs: timer(100),
      healthCheckTimeoutMs: timer(),
    }),
  ),
  handlers: optional(
    object({
      roots: optional(
        anyOf([arrayOf(root), func], "an array of { uri: 'file://...' } or a function"),
      ),
      sampling: optional(anyOf([oneOf(['agent']), func], "'agent' or a function")),
      elicitation: optional(func),
      logging: optional(func),
    }),
  ),
  clientExtensions: optional(clientExtensionsCheck),
  exposeResources: optional(boolean),
  samplingMaxTokens: optional(integer(1, 1_000_000)),
  handlerTimeoutMs: timer(),
  oauth: optional(recordOf(oauthEntry)),
  maxPrincipalConnections: optional(integer(1, 10_000)),
  principalIdleMs: timer(),
  toolSearch: optional(anyOf([boolean, oneOf(['auto'])], "'auto', true or false")),
  toolSearchBudgetTokens: optional(integer(1)),
  alwaysLoad: optional(arrayOf(policyPattern)),
  tasks: optional(
    object({ minPollIntervalMs: timer(), maxPollIntervalMs: timer(), parkAfterMs: timer() }),
  ),
  replay: optional(oneOf(['never', 'idempotent'])),
});

const file = object({
  mcpServers: recordOf(() => undefined, 'an object of { name: declaration }'),
});

/** `details.field`: the path of the first problem, when it is inside the value. */
function fieldOf(found: readonly ConfigIssue[]): { field?: string } {
  const path = found[0]?.path ?? '';
  return path === '' ? {} : { field: path };
}

/**
 * Validates one server declaration from a source. Files may only hold stdio, http and sse
 * declarations without `auth` (credentials belong to the host, not to committed files).
 */
export function parseServerConfig(
  name: string,
  value: unknown,
  source: McpServerSource,
  where: string,
): McpServerConfig {
  try {
    assertServerName(name);
  } catch (err) {
    throw new MusterError('INVALID_CONFIGURATION', `${where}: ${(err as Error).message}`, {
      details: { server: name, source },
    });
  }
  const fromFile = source === 'project' || source === 'user';
  // the value of createSdkMcpServer() is a declaration by itself
  if (!fromFile && isSdkMcpServer(value)) return { type: 'sdk', server: value };
  const type = (value as { type?: unknown } | null)?.type ?? 'stdio';
  checkPerPrincipalPlace(name, value, type, fromFile, where, source);
  const schema =
    type === 'stdio'
      ? stdio
      : type === 'http'
        ? fromFile
          ? httpFile
          : http
        : type === 'sse'
          ? sse
          : type === 'sdk' && !fromFile
            ? sdk
            : undefined;
  if (!schema) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: server '${name}' has an unknown type ${JSON.stringify(type)}; use ${fromFile ? "'stdio', 'http' or 'sse'" : "'stdio', 'http', 'sse' or 'sdk'"}.`,
      { details: { server: name, source } },
    );
  }
  // `perPrincipal: false` says what leaving it out says, on any server and in files too
  const perPrincipalOff = (value as { perPrincipal?: unknown } | null)?.perPrincipal === false;
  const { perPrincipal: _off, ...rest } = perPrincipalOff ? (value as Record<string, unknown>) : {};
  const found = problems(schema, perPrincipalOff ? rest : value);
  if (found.length > 0) {
    const hint = !fromFile && mentionsSdkServer(type, value) ? ` ${SDK_SHAPE}` : '';
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: server '${name}' is invalid: ${describeProblems(found)}.${hint}`,
      { details: { server: name, source, ...fieldOf(found) } },
    );
  }
  return value as McpServerConfig;
}

/**
 * `perPrincipal` (anything but absent or `false`) where it cannot apply: on a stdio, sse or
 * in-process server (every principal shares those), or in a config file (files hold no
 * credentials).
 */
function checkPerPrincipalPlace(
  name: string,
  value: unknown,
  type: unknown,
  fromFile: boolean,
  where: string,
  source: McpServerSource,
): void {
  if (typeof value !== 'object' || value === null) return;
  // `perPrincipal: false` says what leaving it out says: nothing to refuse
  const set = (value as { perPrincipal?: unknown }).perPrincipal;
  if (set === undefined || set === false) return;
  const fix = `mcp.oauth['${name}'].perPrincipal: true in the agent's options, or auth: { type: 'provider', provider: (principal) => ... } with perPrincipal: true on an http server the host declares`;
  let why: string | undefined;
  if (type !== 'http')
    why = `is a ${String(type)} server, which every principal shares (connections per principal are for http servers that sign each user in)`;
  else if (fromFile) why = 'is declared in a config file, which holds no credentials';
  if (why === undefined) return;
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `${where}: server '${name}' sets perPrincipal: ${typeof set === 'boolean' ? String(set) : `a ${typeof set}`} but ${why}: remove perPrincipal, or use ${fix}.`,
    { details: { server: name, source, field: 'perPrincipal' } },
  );
}

/** How an in-process server is declared, for the errors of a declaration that meant one. */
const SDK_SHAPE =
  "Declare an in-process server as { type: 'sdk', server } with server = createSdkMcpServer(...), or pass that server itself.";

/**
 * True when a refused declaration meant an in-process server: `type: 'sdk'`, or a server made
 * by `createSdkMcpServer()` in one of its fields (`{ server }` without `type`, `{ sdk: server }`).
 */
function mentionsSdkServer(type: unknown, value: unknown): boolean {
  if (type === 'sdk') return true;
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(isSdkMcpServer);
}

/**
 * Validates `mcp` options; unknown keys, and a pinned protocol version the client does not
 * speak, fail with `INVALID_CONFIGURATION`.
 */
export function parseMcpOptions(value: unknown): McpOptions {
  if (value === undefined) return {};
  const found = problems(options, value);
  if (found.length > 0)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Invalid mcp options: ${describeProblems(found)}.`,
      { details: fieldOf(found) },
    );
  checkProtocolPin((value as McpOptions).protocol);
  checkTaskPolling((value as McpOptions).tasks);
  return value as McpOptions;
}

/** `mcp.tasks`: the shortest wait between polls may not exceed the longest (defaults applied). */
function checkTaskPolling(tasks: McpOptions['tasks']): void {
  if (tasks === undefined) return;
  const min = tasks.minPollIntervalMs ?? MCP_DEFAULTS.tasks.minPollIntervalMs;
  const max = tasks.maxPollIntervalMs ?? MCP_DEFAULTS.tasks.maxPollIntervalMs;
  if (min <= max) return;
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `Invalid mcp options: mcp.tasks.minPollIntervalMs (${min}) is over mcp.tasks.maxPollIntervalMs (${max}); set the shortest wait between two polls of a task at most the longest.`,
    { details: { field: 'tasks.minPollIntervalMs' } },
  );
}

/** Validates the shape of a config file: `{ "mcpServers": { name: declaration } }`. */
export function parseConfigFile(value: unknown, where: string): Record<string, unknown> {
  const found = problems(file, value);
  if (found.length > 0) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: ${describeProblems(found)}. The file must be { "mcpServers": { "<name>": { ... } } }.`,
    );
  }
  return (value as { mcpServers: Record<string, unknown> }).mcpServers;
}
