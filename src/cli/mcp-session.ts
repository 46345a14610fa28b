import { McpClientManager } from '../mcp/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { CliContext } from './cli-context.js';
import { storedOAuthOptions } from './stored-oauth.js';

/**
 * Runs `fn` with an {@link McpClientManager} over the project and user files of this command
 * line (validated as `createAgent` validates them), with the sign-ins `muster mcp auth` stored
 * (pull mode: a server whose tokens are gone shows `needs-auth`), and closes every connection
 * and child process afterwards, whatever happens.
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
  } finally {
    await manager.close();
  }
}
