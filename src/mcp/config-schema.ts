import type { ZodError, ZodType } from 'zod';
import { MusterError } from '../errors/index.js';
import { assertServerName } from '../tools/index.js';
import type { McpOptions, McpServerConfig, McpServerSource } from './config-types.js';
import { loadZod } from './load-zod.js';
import { isSdkMcpServer } from './sdk-server.js';

interface Schemas {
  readonly stdio: ZodType;
  readonly http: ZodType;
  readonly sse: ZodType;
  readonly sdk: ZodType;
  readonly httpFile: ZodType;
  readonly options: ZodType;
  readonly file: ZodType;
}

/** The longest delay a Node timer honours; longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

let schemas: Schemas | undefined;

function build(): Schemas {
  const z = loadZod();
  const strings = z.record(z.string(), z.string());
  const connectTimeout = z.number().int().positive().max(MAX_TIMER_MS).optional();
  const stdio = z.strictObject({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: strings.optional(),
    cwd: z.string().min(1).optional(),
    maxBufferSize: z.number().int().positive().optional(),
    connectTimeoutMs: connectTimeout,
  });
  const bearer = z.strictObject({ type: z.literal('bearer'), token: z.string().min(1) });
  const provider = z.strictObject({
    type: z.literal('provider'),
    provider: z.custom<object>(
      (v) => typeof v === 'object' && v !== null,
      'must be an AuthProvider or OAuthClientProvider',
    ),
  });
  const httpShape = {
    type: z.literal('http'),
    url: z.string().min(1),
    headers: strings.optional(),
    timeoutMs: z.number().int().positive().max(86_400_000).optional(),
    connectTimeoutMs: connectTimeout,
  };
  const http = z.strictObject({
    ...httpShape,
    auth: z.discriminatedUnion('type', [bearer, provider]).optional(),
  });
  const httpFile = z.strictObject(httpShape);
  const sse = z.strictObject({
    type: z.literal('sse'),
    url: z.string().min(1),
    headers: strings.optional(),
    connectTimeoutMs: connectTimeout,
  });
  const sdk = z.strictObject({
    type: z.literal('sdk'),
    server: z.custom<object>(isSdkMcpServer, 'must be a server made by createSdkMcpServer()'),
  });
  const transports = z.array(z.enum(['stdio', 'http', 'sse', 'sdk']));
  const options = z.strictObject({
    strictConfig: z.boolean().optional(),
    allowedServers: z.array(z.string()).optional(),
    transports: transports.optional(),
    startupConcurrency: z.number().int().min(1).max(64).optional(),
    protocol: z
      .strictObject({
        mode: z.union([
          z.enum(['auto', 'legacy']),
          z.strictObject({ pin: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) }),
        ]),
        probeTimeoutMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
        probeMaxRetries: z.number().int().min(0).max(10).optional(),
      })
      .optional(),
    names: z.enum(['safe', 'strict']).optional(),
    maxResponseBytes: z.number().int().min(1024).optional(),
    sandbox: z
      .strictObject({ command: z.string().trim().min(1), args: z.array(z.string()).optional() })
      .optional(),
    archiveThresholdBytes: z.number().int().min(256).optional(),
    operation: z
      .strictObject({
        timeoutMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
        maxTotalTimeoutMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
      })
      .optional(),
    reconnect: z
      .strictObject({
        enabled: z.boolean().optional(),
        maxAttempts: z.number().int().min(1).max(100).optional(),
        initialDelayMs: z.number().int().min(0).max(MAX_TIMER_MS).optional(),
        maxDelayMs: z.number().int().min(0).max(MAX_TIMER_MS).optional(),
        jitterRatio: z.number().min(0).max(1).optional(),
        healthCheckIntervalMs: z.number().int().min(100).max(MAX_TIMER_MS).optional(),
        healthCheckTimeoutMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
      })
      .optional(),
  });
  const fn = z.custom<(...args: unknown[]) => unknown>(
    (v) => typeof v === 'function',
    'must be a function',
  );
  const root = z.strictObject({
    uri: z.string().startsWith('file://'),
    name: z.string().optional(),
  });
  const withHandlers = options.extend({
    handlers: z
      .strictObject({
        roots: z.union([z.array(root), fn]).optional(),
        sampling: z.union([z.literal('agent'), fn]).optional(),
        elicitation: fn.optional(),
        logging: fn.optional(),
      })
      .optional(),
    exposeResources: z.boolean().optional(),
    samplingMaxTokens: z.number().int().min(1).max(1_000_000).optional(),
    handlerTimeoutMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
  });
  const store = z.custom<object>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      ['get', 'set', 'delete', 'update'].every(
        (m) => typeof (v as Record<string, unknown>)[m] === 'function',
      ),
    "must be 'memory', 'file', 'keychain' or a TokenStore (get, set, delete, update)",
  );
  const oauthProvider = z.custom<object>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      typeof (v as Record<string, unknown>).tokens === 'function' &&
      typeof (v as Record<string, unknown>).clientInformation === 'function',
    'must be an OAuthClientProvider (tokens(), clientInformation())',
  );
  const oauthEntry = z.strictObject({
    serverUrl: z.string().min(1),
    allowedOrigins: z.array(z.string().min(1)),
    provider: oauthProvider.optional(),
    store: z.union([z.enum(['memory', 'file', 'keychain']), store]).optional(),
    authorize: fn.optional(),
    redirectUri: z.string().min(1).optional(),
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    clientMetadataUrl: z.string().min(1).optional(),
    scope: z.string().min(1).optional(),
    grant: z.enum(['authorization_code', 'client_credentials']).optional(),
    privateKeyJwk: z.looseObject({ kty: z.string().min(1), alg: z.string().optional() }).optional(),
    expectedIssuer: z.string().min(1).optional(),
    stepUp: z.boolean().optional(),
    timeoutMs: z.number().int().min(1).max(600_000).optional(),
  });
  const withAuth = withHandlers.extend({ oauth: z.record(z.string(), oauthEntry).optional() });
  const file = z.strictObject({ mcpServers: z.record(z.string(), z.unknown()) });
  return { stdio, http, sse, sdk, httpFile, options: withAuth, file };
}

function get(): Schemas {
  schemas ??= build();
  return schemas;
}

function describeIssues(error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const path = i.path.length > 0 ? i.path.join('.') : '(root)';
      return `${path}: ${i.code === 'unrecognized_keys' ? `unknown key(s) ${i.keys.join(', ')}` : i.message}`;
    })
    .join('; ');
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
  const s = get();
  const type = (value as { type?: unknown } | null)?.type ?? 'stdio';
  const fromFile = source === 'project' || source === 'user';
  const schema =
    type === 'stdio'
      ? s.stdio
      : type === 'http'
        ? fromFile
          ? s.httpFile
          : s.http
        : type === 'sse'
          ? s.sse
          : type === 'sdk' && !fromFile
            ? s.sdk
            : undefined;
  if (!schema) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: server '${name}' has an unknown type ${JSON.stringify(type)}; use ${fromFile ? "'stdio', 'http' or 'sse'" : "'stdio', 'http', 'sse' or 'sdk'"}.`,
      { details: { server: name, source } },
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: server '${name}' is invalid: ${describeIssues(parsed.error)}.`,
      {
        details: { server: name, source },
      },
    );
  }
  return value as McpServerConfig;
}

/** Validates `mcp` options; unknown keys fail with `INVALID_CONFIGURATION`. */
export function parseMcpOptions(value: unknown): McpOptions {
  if (value === undefined) return {};
  const parsed = get().options.safeParse(value);
  if (!parsed.success)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Invalid mcp options: ${describeIssues(parsed.error)}.`,
    );
  return value as McpOptions;
}

/** Validates the shape of a config file: `{ "mcpServers": { name: declaration } }`. */
export function parseConfigFile(value: unknown, where: string): Record<string, unknown> {
  const parsed = get().file.safeParse(value);
  if (!parsed.success) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: ${describeIssues(parsed.error)}. The file must be { "mcpServers": { "<name>": { ... } } }.`,
    );
  }
  return (value as { mcpServers: Record<string, unknown> }).mcpServers;
}
