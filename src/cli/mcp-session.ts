import { McpClientManager } from '../mcp/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { CliContext } from './cli-context.js';

/**
 * Runs `fn` with an {@link McpClientManager} over the project and user files of this command
 * line (validated as `createAgent` validates them), and closes every connection and child
 * process afterwards, whatever happens.
 */
export async function withMcp<T>(
  ctx: CliContext,
  fn: (manager: McpClientManager) => Promise<T>,
  policy?: PolicyOptions,
): Promise<T> {
  const manager = new McpClientManager(
    {},
    { workdir: ctx.workdir(), ...(policy ? { policy } : {}) },
  );
  try {
    return await fn(manager);
  } finally {
    await manager.close();
  }
}
