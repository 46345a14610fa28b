import type {
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  ListPromptsResult,
} from '@modelcontextprotocol/client';
import type { OperationContext } from './operation-context.js';
import type { McpOperationOptions } from '../contracts/operation-types.js';

/** Lists every prompt of a server (all pages). */
export function listPrompts(
  ops: OperationContext,
  server: string,
  options?: McpOperationOptions,
): Promise<ListPromptsResult> {
  return ops.run(server, 'Listing prompts', 'read', options, (c, request) =>
    c.request((client) => client.listPrompts(undefined, { ...request, cacheMode: 'refresh' })),
  );
}

/** Fetches one prompt with its arguments. Its messages are the server's: untrusted. */
export function getPrompt(
  ops: OperationContext,
  server: string,
  name: string,
  args: Readonly<Record<string, string>> | undefined,
  options?: McpOperationOptions,
): Promise<GetPromptResult> {
  return ops.run(server, `Getting prompt '${name}'`, 'read', options, (c, request) =>
    c.request((client) =>
      client.getPrompt({ name, ...(args ? { arguments: { ...args } } : {}) }, request),
    ),
  );
}

/** Asks for completions of a prompt's or a resource template's argument. */
export function complete(
  ops: OperationContext,
  server: string,
  params: CompleteRequestParams,
  options?: McpOperationOptions,
): Promise<CompleteResult> {
  return ops.run(server, 'Completion', 'read', options, (c, request) =>
    c.request((client) => client.complete(params, request)),
  );
}
