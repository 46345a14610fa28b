// example-helper: not run on its own
/**
 * The LotaGateAgent-style host of docs/migrating.md on Muster: a stdio server and a remote
 * server with a bearer token, an allow-list of visible tools, an approval handler, and a
 * streamed run. test/query/ runs it with a scripted model and fixtures; the doc shows the code
 * between the `#region host` markers.
 */
import { Agent } from '../../src/index.js';
import type { McpStdioServerConfig, ModelClient } from '../../src/index.js';

/** What the host needs from its surroundings (the test gives fixtures). */
export interface LotaGateHostDeps {
  readonly model: ModelClient;
  readonly filesystem: McpStdioServerConfig;
  readonly remoteUrl: string;
  readonly remoteToken: string;
  /** Where streamed text goes (a terminal, a socket). */
  readonly write: (text: string) => void;
}

// #region host
export async function runLotaGateHost(deps: LotaGateHostDeps): Promise<{ failed?: unknown }> {
  const agent = new Agent({
    model: deps.model,
    modelName: 'your-text-model',
    mcpServers: {
      filesystem: { type: 'stdio', command: deps.filesystem.command, args: deps.filesystem.args },
      remote: {
        type: 'http',
        url: deps.remoteUrl,
        auth: { type: 'bearer', token: deps.remoteToken },
      },
    },
    mcp: { strictConfig: true },
    policy: {
      // an allow-list: the model sees only these tools; the rest cannot be called
      visibleTools: ['mcp__filesystem__list_directory'],
      allow: ['mcp_connect:*'], // the declared servers connect without asking
      // the approval handler: only calls to filesystem tools are approved
      approve: async (request) => request.server === 'filesystem',
    },
  });
  try {
    for await (const event of agent.run({ input: 'List the available files.', stream: true })) {
      if (event.type === 'model.delta') deps.write(event.content);
      if (event.type === 'session.failed') deps.write(`\n[failed: ${event.error.code}]\n`);
    }
    return {};
  } catch (error) {
    // run() yields session.failed, then throws the same error
    return { failed: error };
  } finally {
    await agent.close(); // closes connections and child processes
  }
}
// #endregion host
