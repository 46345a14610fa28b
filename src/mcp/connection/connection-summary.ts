import type { ConnectionSummary } from '../../policy/index.js';
import type { SecretRegistry } from '../../util/index.js';
import type { McpSandbox } from '../contracts/config-types.js';
import { fingerprintOfKey } from '../config/declaration-fingerprint.js';
import type { ServerEntry } from './server-entry.js';

/**
 * The origin and path of a server URL: no user or password, no query, no fragment, and any
 * known secret masked; `undefined` when it does not parse.
 */
function safeUrl(url: string, secrets: SecretRegistry): string | undefined {
  try {
    const u = new URL(url);
    return secrets.redact(`${u.origin}${u.pathname}`);
  } catch {
    return undefined;
  }
}

/**
 * What connecting to `e` will start or reach, for the connection's authorization request
 * (see {@link ConnectionSummary}). Commands, arguments and the working directory are shown as
 * declared (a person must see what runs), with only a value that is also a declared secret
 * (an env value, a header value, a token) or shaped like a credential masked; env variables
 * and headers are shown by name only.
 */
export function connectionSummary(e: ServerEntry, sandbox?: McpSandbox): ConnectionSummary {
  const base = { transport: e.type, configSource: e.source, fingerprint: fingerprintOfKey(e.key) };
  const config = e.config;
  const mask = (s: string) => e.secrets.redact(s);
  if (config.type === undefined || config.type === 'stdio') {
    const envKeys = Object.keys(config.env ?? {});
    return {
      ...base,
      command: mask(config.command),
      args: (config.args ?? []).map(mask),
      ...(config.cwd !== undefined ? { cwd: mask(config.cwd) } : {}),
      ...(envKeys.length > 0 ? { envKeys } : {}),
      ...(sandbox
        ? {
            sandbox: {
              command: mask(sandbox.command),
              ...(sandbox.args ? { args: sandbox.args.map(mask) } : {}),
            },
          }
        : {}),
    };
  }
  if (config.type === 'http' || config.type === 'sse') {
    const url = safeUrl(config.url, e.secrets);
    const headerNames = Object.keys(config.headers ?? {});
    const auth = config.type === 'http' ? config.auth?.type : undefined;
    return {
      ...base,
      ...(url !== undefined ? { url } : {}),
      ...(headerNames.length > 0 ? { headerNames } : {}),
      ...(auth !== undefined ? { auth } : {}),
    };
  }
  return base;
}
