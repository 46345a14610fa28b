import type {
  ListResourceTemplatesResult,
  ListResourcesResult,
  ReadResourceResult,
} from '@modelcontextprotocol/client';
import type { OperationContext } from './operation-context.js';
import { forgetSubscription, rememberSubscription } from '../connection/session-state.js';
import type { McpOperationOptions } from '../contracts/operation-types.js';

/** Lists every resource of a server (all pages). */
export function listResources(
  ops: OperationContext,
  server: string,
  options?: McpOperationOptions,
): Promise<ListResourcesResult> {
  return ops.run(server, 'Listing resources', 'read', options, (c, request) =>
    c.request((client) => client.listResources(undefined, { ...request, cacheMode: 'refresh' })),
  );
}

/** Lists every resource template of a server (all pages). */
export function listResourceTemplates(
  ops: OperationContext,
  server: string,
  options?: McpOperationOptions,
): Promise<ListResourceTemplatesResult> {
  return ops.run(server, 'Listing resource templates', 'read', options, (c, request) =>
    c.request((client) =>
      client.listResourceTemplates(undefined, { ...request, cacheMode: 'refresh' }),
    ),
  );
}

/** Reads one resource. Its content is the server's: treat it as untrusted. */
export function readResource(
  ops: OperationContext,
  server: string,
  uri: string,
  options?: McpOperationOptions,
): Promise<ReadResourceResult> {
  return ops.run(server, `Reading '${uri}'`, 'read', options, (c, request) =>
    c.request((client) => client.readResource({ uri }, { ...request, cacheMode: 'bypass' })),
  );
}

/**
 * Subscribes to `notifications/resources/updated` for one resource (legacy servers). The
 * subscription is remembered and made again on every new connection (a reconnect, a renewed
 * HTTP session) until {@link unsubscribeResource}.
 */
export async function subscribeResource(
  ops: OperationContext,
  server: string,
  uri: string,
  options?: McpOperationOptions,
): Promise<void> {
  await ops.run(server, `Subscribing to '${uri}'`, 'read', options, (c, request) =>
    c.request((client) => client.subscribeResource({ uri }, request)),
  );
  const e = ops.entry(server);
  if (e) rememberSubscription(e, uri);
}

/** Ends a subscription made with {@link subscribeResource}. */
export async function unsubscribeResource(
  ops: OperationContext,
  server: string,
  uri: string,
  options?: McpOperationOptions,
): Promise<void> {
  const e = ops.entry(server);
  if (e) forgetSubscription(e, uri);
  await ops.run(server, `Unsubscribing from '${uri}'`, 'read', options, (c, request) =>
    c.request((client) => client.unsubscribeResource({ uri }, request)),
  );
}
