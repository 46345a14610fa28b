// The peer MCP clients the benchmark compares Muster with, loaded from bench/peers/node_modules
// (npm --prefix bench/peers ci). Each peer is imported only when opened, so one missing peer
// does not hide the other. Types: peer-clients.d.mts.

/** @param {unknown} result */
function failed(result) {
  return typeof result === 'object' && result !== null && result.isError === true;
}

/**
 * A connected AI SDK client for `target`.
 * @param {import('./peer-clients.d.mts').PeerTarget} target
 */
async function aiSdkClient(target) {
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
  return createMCPClient({ transport });
}

/**
 * An OpenAI Agents MCP server object for `target` (not yet connected).
 * @param {typeof import('@openai/agents-core')} agents
 * @param {import('./peer-clients.d.mts').PeerTarget} target
 */
function openAiServer(agents, target) {
  // Its requests time out after 5 s by default, the raw client's after 60 s: ten servers
  // starting on one busy core can take longer than 5 s to answer `initialize`.
  const clientSessionTimeoutSeconds = 60;
  return target.kind === 'stdio'
    ? new agents.MCPServerStdio({
        command: target.command,
        args: [...target.args],
        clientSessionTimeoutSeconds,
      })
    : new agents.MCPServerStreamableHttp({
        url: target.kind === 'http' ? target.url : '',
        clientSessionTimeoutSeconds,
      });
}

/** @type {import('./peer-clients.d.mts').PeerClient} */
const aiSdk = {
  label: 'AI SDK MCP client (@ai-sdk/mcp)',
  short: 'AI SDK',
  targets: ['stdio', 'http', 'transport'],
  async ready(target) {
    const client = await aiSdkClient(target);
    try {
      const tools = await client.tools();
      return { tools: Object.keys(tools).length, close: () => client.close() };
    } catch (err) {
      await client.close();
      throw err;
    }
  },
  async open(target, tool, args) {
    const client = await aiSdkClient(target);
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
  short: 'OpenAI Agents',
  targets: ['stdio', 'http'],
  async ready(target) {
    const server = openAiServer(await import('@openai/agents-core'), target);
    try {
      await server.connect();
      const tools = await server.listTools();
      return { tools: tools.length, close: () => server.close() };
    } catch (err) {
      await server.close();
      throw err;
    }
  },
  async open(target, tool, args) {
    const server = openAiServer(await import('@openai/agents-core'), target);
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
