import type {
  ExecutorRunContext,
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolInfo,
  ToolReturn,
} from '../tools/index.js';
import { ToolError } from '../errors/index.js';
import type { McpManager } from './mcp-manager.js';

/**
 * MCP as a tool source: the tools of connected servers, each executed on its server under its
 * original name. Connecting and refreshing happen in `prepareRun`, before a run's catalog is fixed.
 */
export class McpToolExecutor implements ToolExecutor {
  constructor(private readonly manager: McpManager) {}

  listTools(): readonly ToolDefinition[] {
    return this.manager.index.definitions();
  }

  getToolInfo(name: string): ToolInfo {
    const origin = this.manager.index.resolve(name);
    return origin
      ? { source: 'mcp', server: origin.server, originalName: origin.originalName }
      : { source: 'mcp' };
  }

  prepareRun(ctx: ExecutorRunContext): Promise<void> {
    return this.manager.prepare(ctx);
  }

  async execute(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    const address = this.manager.index.resolve(name);
    if (!address) {
      throw new ToolError(
        'TOOL_EXECUTION_FAILED',
        `The server of '${name}' is not connected; the call was not sent.`,
        { toolName: name, details: { reason: 'not-sent' } },
      );
    }
    const result = await this.manager.runner.callTool(address.server, address.originalName, input, {
      toolName: name,
      signal: ctx.signal,
      onProgress: (p) =>
        ctx.reportProgress({
          progress: p.progress,
          ...(p.total !== undefined ? { total: p.total } : {}),
          ...(p.message !== undefined ? { message: p.message } : {}),
        }),
    });
    return result as unknown as ToolReturn;
  }

  close(): Promise<void> {
    return this.manager.close();
  }
}
