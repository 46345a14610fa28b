import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { wrapAuthProvider } from '../../auth/index.js';
import { SecretRegistry } from '../../util/index.js';
import type { McpHttpServerConfig } from '../contracts/config-types.js';
import { createGuardedFetch } from './guarded-fetch.js';
import { validateRemoteConfig } from './remote-config.js';
import { ResponseBodyWatch, settleSendWithResponseBody } from './request-watch.js';
import { TaskCapture } from './task-capture.js';
import type { TransportContext, TransportHandle } from '../contracts/transport-types.js';

/**
 * Builds the official `StreamableHTTPClientTransport` for an `http` server, on the checked
 * URL and through the guarded fetch (redirects refused, response bytes bounded, static
 * headers and bearer token sent to the server's origin only). `redirectPolicy: 'follow'`
 * leaves redirects to that fetch, which refuses every one; with the default
 * `'same-origin'` the client would follow same-origin redirects itself. A provider `auth`
 * becomes the client's `authProvider`; with `mcp.oauth`, the OAuth session's token source
 * does, and its guard checks the origin of every request. A request whose response stream exceeds the limit
 * rejects with the guard's `McpError('MCP_OPERATION_FAILED')` instead of waiting for its
 * timeout.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for a refused URL, header or auth.
 */
export function createHttpTransport(
  config: McpHttpServerConfig,
  ctx: TransportContext,
): TransportHandle {
  const checked = validateRemoteConfig(ctx.server, config);
  const watch = new ResponseBodyWatch();
  const fetch = createGuardedFetch({
    watch,
    server: ctx.server,
    maxResponseBytes: ctx.maxResponseBytes,
    headers: checked.headers,
    origin: checked.url,
    ...(checked.bearerToken === undefined ? {} : { bearerToken: checked.bearerToken }),
  });
  const authProvider = ctx.oauth
    ? ctx.oauth.authProvider()
    : checked.authProvider &&
      wrapAuthProvider(ctx.server, checked.authProvider, ctx.secrets ?? new SecretRegistry());
  const transport = new StreamableHTTPClientTransport(checked.url, {
    fetch: ctx.oauth ? ctx.oauth.guard(fetch) : fetch,
    redirectPolicy: 'follow',
    ...(authProvider === undefined ? {} : { authProvider }),
  });
  settleSendWithResponseBody(transport, watch);
  const tasks = new TaskCapture();
  tasks.attach(transport);
  return { transport, tasks };
}
