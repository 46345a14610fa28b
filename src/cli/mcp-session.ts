import { McpError } from '../errors/index.js';
import { McpClientManager } from '../mcp/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { CliContext } from './cli-context.js';
import { attachServerStderr, endedServerStderr, serverOfError } from './server-stderr.js';
import { storedOAuthOptions } from './stored-oauth.js';

/** What the CLI says of a server in `needs-auth`: the command that signs it in. */
export function signInNeeded(server: string): string {
  return `Server '${server}' needs a sign-in: run \`muster mcp auth ${server}\`, then try again.`;
}

/**
 * Runs `fn` with an {@link McpClientManager} over the project and user files of this command
 * line (validated as `createAgent` validates them), with the sign-ins `muster mcp auth` stored
 * (pull mode), and closes every connection and child process afterwards, whatever happens. A
 * server never signed in, signed out, or whose tokens stopped working shows `needs-auth`; an
 * operation on it fails with `MCP_AUTH_REQUIRED` (exit 4) saying to run `muster mcp auth`. A
 * failure about a stdio server whose process ended keeps that process's redacted stderr tail,
 * for the error report to print.
 */
export async function withMcp<T>(
  ctx: CliContext,
  fn: (manager: McpClientManager) => Promise<T>,
  policy?: PolicyOptions,
): Promise<T> {
  const oauth = await storedOAuthOptions(ctx.workdir(), ctx.home());
  const manager = new McpClientManager(
    {},
    {
      workdir: ctx.workdir(),
      ...(Object.keys(oauth).length > 0 ? { oauth } : {}),
      ...(policy ? { policy } : {}),
    },
  );
  try {
    return await fn(manager);
  } catch (err) {
    const server = serverOfError(err);
    if (server !== undefined)
      attachServerStderr(
        err,
        endedServerStderr(server, (name) => manager.diagnostics(name)),
      );
    throw signInHint(err);
  } finally {
    await manager.close();
  }
}

/** The library says how a host signs a server in; on the command line it is `muster mcp auth`. */
function signInHint(err: unknown): unknown {
  if (!McpError.isInstance(err) || err.code !== 'MCP_AUTH_REQUIRED' || err.server === undefined)
    return err;
  return new McpError('MCP_AUTH_REQUIRED', signInNeeded(err.server), {
    server: err.server,
    details: err.details,
    cause: err,
  });
}
