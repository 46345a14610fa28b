import { MusterError } from '../errors/index.js';
import { MCP_CONFIG_SCOPES, mcpConfigPath, parseMcpConfigScope } from '../mcp/index.js';
import type { McpConfigScope } from '../mcp/index.js';
import type { CliContext } from './cli-context.js';

/** Commander's collector for a repeatable option. */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** The scopes a command looks at: the one of `--scope`, or both. */
export function scopesOf(scope: string | undefined): readonly McpConfigScope[] {
  return scope === undefined ? MCP_CONFIG_SCOPES : [parseMcpConfigScope(scope)];
}

/** The file of a scope for this command line. */
export function scopePath(ctx: CliContext, scope: McpConfigScope): string {
  return mcpConfigPath(scope, ctx.workdir(), ctx.home());
}

function usage(message: string, field: string): MusterError {
  return new MusterError('INVALID_CONFIGURATION', message, { details: { field } });
}

/** `--env KEY=VALUE` values as an object (the value is never echoed in an error). */
export function parseEnv(values: readonly string[]): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0)
      throw usage('Each --env must be KEY=VALUE (a name, then =, then the value).', 'env');
    env[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return env;
}

/** `--header 'Name: value'` values as an object (the value is never echoed in an error). */
export function parseHeaders(values: readonly string[]): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  const headers: Record<string, string> = {};
  for (const v of values) {
    const colon = v.indexOf(':');
    const name = colon > 0 ? v.slice(0, colon).trim() : '';
    if (name === '')
      throw usage(
        "Each --header must be 'Name: value' (a name, a colon, then the value).",
        'headers',
      );
    headers[name] = v.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * Tool arguments from `--args '{...}'` (a JSON object) and `--arg k=v` (repeatable; the value
 * is JSON when it parses as JSON, else the string itself); `--arg` wins over `--args`.
 */
export function parseToolArgs(
  json: string | undefined,
  pairs: readonly string[],
): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (err) {
      throw usage(`--args is not valid JSON: ${(err as Error).message}.`, 'args');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw usage('--args must be a JSON object, e.g. --args \'{"text":"hi"}\'.', 'args');
    args = { ...(parsed as Record<string, unknown>) };
  }
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usage('Each --arg must be key=value, e.g. --arg count=3.', 'arg');
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // not JSON: the string itself
    }
    args[pair.slice(0, eq)] = value;
  }
  return args;
}
