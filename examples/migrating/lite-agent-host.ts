// example-helper: not run on its own
/**
 * The createLiteAgent-style host of docs/migrating.md on Muster: project directory, host
 * approval for connections and calls, strict configuration, one declared server and one
 * registered at run time. test/query/ runs it with a scripted model and stdio fixtures; the
 * doc shows the code between the `#region host` markers.
 */
import { createAgent } from '../../src/index.js';
import type {
  AuthorizationRequest,
  McpServerConfig,
  McpServerStatus,
  ModelClient,
} from '../../src/index.js';

/** What the host needs from its surroundings (the test gives fixtures). */
export interface LiteAgentHostDeps {
  readonly model: ModelClient;
  readonly workdir: string;
  readonly docs: McpServerConfig;
  readonly search: McpServerConfig;
  /** Your approval UI: answers 'allow' or 'deny' for a connection or a call. */
  readonly requestHostApproval: (
    request: AuthorizationRequest,
    signal: AbortSignal,
  ) => Promise<'allow' | 'deny'>;
}

// #region host
export async function runLiteAgentHost(
  deps: LiteAgentHostDeps,
): Promise<{ statuses: McpServerStatus[]; text: string }> {
  const agent = createAgent({
    workdir: deps.workdir,
    model: deps.model,
    modelName: 'your-model',
    // asked before every connection (mcp_connect:<server>) and every call not pre-approved
    policy: {
      approve: async (request, signal) =>
        (await deps.requestHostApproval(request, signal)) === 'allow',
    },
    mcp: { strictConfig: true }, // ignore .muster/mcp.json and ~/.muster/mcp.json
    mcpServers: { docs: deps.docs },
  });
  try {
    await agent.mcp.register('search', deps.search); // connected and discovered when it resolves
    const statuses = agent.mcp.list(); // a local snapshot: no I/O, no secrets
    const { text } = await agent.send('Search the documentation');
    await agent.awaitIdle();
    await agent.mcp.unregister('search');
    return { statuses, text };
  } finally {
    await agent.close();
  }
}
// #endregion host
