import { McpClientManager } from '../mcp/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { CliContext } from './cli-context.js';
import { attachServerStderr, endedServerStderr, serverOfError } from './server-stderr.js';
import { storedOAuthOptions } from './stored-oauth.js';

/**
 * Runs `fn` with an {@link McpClientManager} over the project and user files of this command
 * line (validated as `createAgent` validates them), with the sign-ins `muster mcp auth` stored
 * (pull mode: a server whose tokens are gone shows `needs-auth`), and closes every connection
 * and child process afterwards, whatever happens. A failure about a stdio server whose process
 * ended keeps that process's redacted stderr tail, for the error report to print.
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
    throw err;
  } finally {
    await manager.close();
  }
}
