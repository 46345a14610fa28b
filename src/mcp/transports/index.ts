/**
 * Transports of process and remote MCP servers, built on the official client's own
 * transports and guarded as SPEC 7.2 says. This folder imports the client package
 * statically; `client/connection-open.ts` loads it lazily.
 */
import { MusterError } from '../../errors/index.js';
import type { McpServerConfig, McpStdioServerConfig } from '../contracts/config-types.js';
import { createHttpTransport } from './http-transport.js';
import { createSseTransport } from './sse-transport.js';
import { createStdioTransport } from './stdio-transport.js';
import type { TransportContext, TransportHandle } from '../contracts/transport-types.js';

/** A declaration this folder builds a transport for (every type but `sdk`). */
export type McpTransportServerConfig = Exclude<McpServerConfig, { type: 'sdk' }>;

/**
 * Builds the transport of one server declaration, dispatching on `type` (`stdio` when
 * absent). Nothing is started: `Client.connect(handle.transport)` spawns or dials.
 *
 * @throws MusterError `INVALID_CONFIGURATION` when the declaration is refused.
 * @example
 * ```ts
 * const handle = createTransport({ command: 'node', args: ['server.mjs'] }, ctx);
 * await new Client({ name: 'muster', version: '1' }).connect(handle.transport);
 * ```
 */
export function createTransport(
  config: McpTransportServerConfig,
  ctx: TransportContext,
): TransportHandle {
  switch (config.type) {
    case undefined:
    case 'stdio':
      return createStdioTransport(config as McpStdioServerConfig, ctx);
    case 'http':
      return createHttpTransport(config, ctx);
    case 'sse':
      return createSseTransport(config, ctx);
    default:
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Server "${ctx.server}" has the unknown type ${JSON.stringify((config as { type: unknown }).type)}: use stdio, http, sse or sdk`,
        { details: { server: ctx.server } },
      );
  }
}

export { validateRemoteConfig } from './remote-config.js';
export type { CheckedRemoteConfig } from './remote-config.js';
export { checkServerUrl, checkHeaders, RESERVED_HEADER_NAMES } from './url-policy.js';
export { createGuardedFetch } from './guarded-fetch.js';
export type { GuardedFetchOptions } from './guarded-fetch.js';
export { limitResponseBody, responseTooLarge } from './body-limit.js';
export type { BodyLimit, LimitedResponse } from './body-limit.js';
export { StderrRing } from './stderr-ring.js';
export { createStdioTransport, stdioServerParameters } from './stdio-transport.js';
export { createHttpTransport } from './http-transport.js';
export { createSseTransport } from './sse-transport.js';
export type { TransportContext, TransportHandle } from '../contracts/transport-types.js';
