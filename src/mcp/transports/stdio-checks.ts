import { MusterError } from '../../errors/index.js';
import type { McpStdioServerConfig } from '../contracts/config-types.js';

/** A valid environment variable name for `spawn`: no `=`, no NUL, not empty. */
const ENV_NAME = /^[^=\0]+$/;

function invalid(
  server: string,
  field: string,
  message: string,
  extra: Record<string, unknown> = {},
) {
  return new MusterError('INVALID_CONFIGURATION', message, {
    details: { server, field, ...extra },
  });
}

/**
 * Checks what `spawn` would otherwise refuse only when the server is started, or misread: a
 * blank `command`, an argument or `cwd` with a NUL byte, an env name that is empty or holds
 * `=` or NUL, an env value that is not a string or holds NUL, a `maxBufferSize` that is not a
 * positive integer. Run when a declaration is made (construction, `register`, `update`), so a
 * bad one fails before anything starts. Each error is `INVALID_CONFIGURATION` with
 * `details.field` naming what to fix; values are never printed (they may be secrets).
 *
 * @throws MusterError `INVALID_CONFIGURATION`.
 */
export function checkStdioConfig(server: string, config: McpStdioServerConfig): void {
  if (typeof config.command !== 'string' || config.command.trim() === '') {
    throw invalid(server, 'command', `Server "${server}" needs a "command" to run`);
  }
  if (config.command.includes('\0')) {
    throw invalid(
      server,
      'command',
      `Server "${server}" has a "command" with a NUL byte: remove it`,
    );
  }
  (config.args ?? []).forEach((arg, index) => {
    if (typeof arg !== 'string' || arg.includes('\0')) {
      throw invalid(
        server,
        `args[${index}]`,
        `Server "${server}" has an argument (args[${index}]) that is not a plain string: remove its NUL byte`,
      );
    }
  });
  for (const [name, value] of Object.entries(config.env ?? {})) {
    if (!ENV_NAME.test(name) || typeof value !== 'string' || value.includes('\0')) {
      throw invalid(
        server,
        'env',
        `Server "${server}" declares env variable ${JSON.stringify(name)} with an invalid name or value: use a name without "=" and a string value`,
        { variable: name },
      );
    }
  }
  if (config.cwd !== undefined && (typeof config.cwd !== 'string' || config.cwd.includes('\0'))) {
    throw invalid(
      server,
      'cwd',
      `Server "${server}" has a "cwd" that is not a plain path: remove its NUL byte`,
    );
  }
  const max = config.maxBufferSize;
  if (max !== undefined && (!Number.isSafeInteger(max) || max <= 0)) {
    throw invalid(
      server,
      'maxBufferSize',
      `Server "${server}" has a maxBufferSize that is not a positive integer`,
    );
  }
}
