// example-helper: not run on its own
/**
 * The query()-style host of docs/migrating.md on Muster: an in-process tool server, a stdio
 * server that elicits, and a remote server behind OAuth signed in before the first message.
 * The test in test/query/ runs it with a scripted model and the loopback fixtures; the doc
 * shows the code between the `#region host` markers.
 */
import { z } from 'zod';
import { createSdkMcpServer, sdkTool } from '../../src/index.js';
import type { McpOAuthServerOptions, McpServerConfig, ModelClient } from '../../src/index.js';
import { query } from '../../src/query/index.js';
import type { QueryMessage } from '../../src/query/index.js';

/** What the host needs from its surroundings (the test gives fixtures). */
export interface QueryHostDeps {
  readonly model: ModelClient;
  /** A stdio server whose tools may ask the user (elicitation). */
  readonly linkServer: McpServerConfig;
  /** A remote server that needs an OAuth sign-in, and its OAuth options. */
  readonly analytics: { readonly url: string; readonly oauth: McpOAuthServerOptions };
  /** Opens the sign-in page and resolves with the callback URL it redirected to. */
  readonly openInBrowserAndWaitForCallback: (authUrl: string) => Promise<string>;
  /** Shows a URL-mode elicitation to the user. */
  readonly openInBrowser: (url: string) => Promise<void>;
}

// #region host
const getUserOrders = sdkTool(
  'get_user_orders',
  "Lists a user's orders, optionally only those with one status.",
  { userId: z.string(), status: z.enum(['pending', 'paid', 'shipped']).optional() },
  async ({ userId, status }) => ({
    content: [
      { type: 'text', text: JSON.stringify([{ userId, id: 'o-1', status: status ?? 'paid' }]) },
    ],
  }),
  { annotations: { readOnlyHint: true } },
);
const crm = createSdkMcpServer({ name: 'crm', tools: [getUserOrders] });

async function* userMessages() {
  yield {
    type: 'user' as const,
    message: { role: 'user' as const, content: 'List the recently paid orders for user-123' },
    parent_tool_use_id: null,
  };
}

export async function runQueryHost(deps: QueryHostDeps): Promise<QueryMessage[]> {
  const q = query({
    prompt: userMessages(),
    options: {
      model: deps.model,
      mcpServers: {
        crm,
        link: deps.linkServer,
        analytics: { type: 'http', url: deps.analytics.url },
      },
      mcpOAuth: { analytics: deps.analytics.oauth },
      mcpProtocol: { mode: 'legacy' },
      strictMcpConfig: true,
      allowedTools: ['mcp__crm__get_user_orders'],
      canUseTool: async (toolName, input) =>
        toolName.startsWith('mcp__')
          ? { behavior: 'allow', updatedInput: { ...input } }
          : { behavior: 'deny', message: 'not here' },
      onElicitation: async (request) => {
        if (request.mode !== 'url' || !request.url) return { action: 'cancel' };
        await deps.openInBrowser(request.url); // completion arrives as system/elicitation_complete
        return { action: 'accept' };
      },
      controlRequestTimeoutMs: 30_000,
    },
  });
  const messages: QueryMessage[] = [];
  try {
    // sign in before the first user message, so the tool list is stable from the start
    await q.initializationResult();
    for (const s of (await q.mcpServerStatus()).filter((x) => x.status === 'needs-auth')) {
      const result = await q.mcpAuthenticate(s.name);
      if (result.requiresUserAction) {
        const callbackUrl = await deps.openInBrowserAndWaitForCallback(result.authUrl!);
        await q.mcpSubmitOAuthCallbackUrl(s.name, callbackUrl);
      }
    }
    for await (const msg of q) {
      messages.push(msg);
      if (msg.type === 'system' && msg.subtype === 'elicitation_complete') {
        // the server finished its URL step; its next calls can succeed
      }
      if (msg.type === 'result') break;
    }
  } finally {
    await q.close();
  }
  return messages;
}
// #endregion host
