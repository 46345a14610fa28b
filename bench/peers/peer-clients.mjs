// The peer MCP clients the benchmark compares Muster with, loaded from bench/peers/node_modules
// (npm --prefix bench/peers ci). Each peer is imported only when opened, so one missing peer
// does not hide the other. Types: peer-clients.d.mts.

/** @param {unknown} result */
function failed(result) {
  return typeof result === 'object' && result !== null && result.isError === true;
}

/** @type {import('./peer-clients.d.mts').PeerClient} */
const aiSdk = {
  label: 'AI SDK MCP client (@ai-sdk/mcp)',
  targets: ['stdio', 'http', 'transport'],
  async open(target, tool, args) {
    const { createMCPClient } = await import('@ai-sdk/mcp');
    let transport;
    if (target.kind === 'stdio') {
      const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
      transport = new Experimental_StdioMCPTransport({
        command: target.command,
        args: [...target.args],
      });
    } else if (target.kind === 'http') transport = { type: 'http', url: target.url };
    else transport = target.transport;
    const client = await createMCPClient({ transport });
    const tools = await client.tools();
    const found = tools[tool];
    if (!found) {
      await client.close();
      throw new Error(`AI SDK peer: no tool '${tool}'`);
    }
    let id = 0;
    return {
      async call() {
        const result = await found.execute(args, { toolCallId: `c${++id}`, messages: [] });
        if (failed(result)) throw new Error(`AI SDK peer call failed: ${JSON.stringify(result)}`);
      },
      close: () => client.close(),
    };
  },
};

/** @type {import('./peer-clients.d.mts').PeerClient} */
const openAiAgents = {
  label: 'OpenAI Agents MCP server (@openai/agents-core)',
  targets: ['stdio', 'http'],
  async open(target, tool, args) {
    const agents = await import('@openai/agents-core');
    const server =
      target.kind === 'stdio'
        ? new agents.MCPServerStdio({ command: target.command, args: [...target.args] })
        : new agents.MCPServerStreamableHttp({ url: target.kind === 'http' ? target.url : '' });
    await server.connect();
    return {
      async call() {
        const result = await server.callToolResult(tool, { ...args });
        if (failed(result)) throw new Error(`OpenAI peer call failed: ${JSON.stringify(result)}`);
      },
      close: () => server.close(),
    };
  },
};

/** The peers, in the order the benchmark prints them. */
export const PEERS = Object.freeze([aiSdk, openAiAgents]);
