import type { Transport } from '@modelcontextprotocol/client';
import { once } from '../../util/index.js';
import type { SdkMcpServer, SdkToolDefinition } from './sdk-server.js';

/** The official parts an in-process connection needs, loaded once per process. */
const loadSdkParts = once(() =>
  Promise.all([
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/server/stdio'),
  ]),
);

/** The client end of an in-process server connection, and how to tear the server end down. */
export interface SdkLink {
  readonly transport: Transport;
  close(): Promise<void>;
}

/**
 * Serves one connection of an in-process server: a fresh official `McpServer` per connection
 * (one definition serves any number at once), linked to the client in memory, answering both
 * protocol eras like a stdio server would.
 */
export async function openSdkLink(definition: SdkMcpServer): Promise<SdkLink> {
  const [{ InMemoryTransport }, { McpServer }, { serveStdio }] = await loadSdkParts();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const factory = () => {
    const server = new McpServer(
      { name: definition.name, version: definition.version },
      { capabilities: { tools: {} } },
    );
    for (const t of definition.tools) register(server, t);
    return server;
  };
  const handle = serveStdio(factory, { transport: serverSide as never });
  return { transport: clientSide as unknown as Transport, close: () => handle.close() };
}

type ServerLike = {
  registerTool(
    name: string,
    config: Record<string, unknown>,
    cb: (...args: never[]) => unknown,
  ): unknown;
};

interface ToolCallContext {
  readonly mcpReq: {
    readonly signal: AbortSignal;
    readonly _meta?: { readonly progressToken?: string | number };
    notify(notification: { method: string; params: Record<string, unknown> }): Promise<void>;
  };
}

function register(server: ServerLike, t: SdkToolDefinition): void {
  const config: Record<string, unknown> = {
    description: t.description,
    inputSchema: t.inputSchema,
  };
  if (t.annotations) config.annotations = t.annotations;
  server.registerTool(t.name, config, (async (args: unknown, ctx: ToolCallContext) => {
    const token = ctx.mcpReq._meta?.progressToken;
    return t.handler(args as never, {
      signal: ctx.mcpReq.signal,
      reportProgress: async (
        update: number | { progress: number; total?: number; message?: string },
        total?: number,
        message?: string,
      ) => {
        if (token === undefined) return;
        const p = typeof update === 'object' ? update : { progress: update, total, message };
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: {
            progressToken: token,
            progress: p.progress,
            ...(p.total !== undefined ? { total: p.total } : {}),
            ...(p.message !== undefined ? { message: p.message } : {}),
          },
        });
      },
    });
  }) as never);
}
