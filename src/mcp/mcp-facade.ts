import { MusterError } from '../errors/index.js';
import type { ExecutorEvent, ExecutorRunContext } from '../tools/index.js';
import { declare } from './config/config-sources.js';
import type { ServerDeclaration } from './config/config-sources.js';
import type { McpServerConfig } from './contracts/config-types.js';
import type { SdkMcpServer } from './servers/sdk-server.js';
import type { McpManager } from './operations/mcp-manager.js';
import { McpOperations } from './operations/mcp-operations.js';
import type { McpServerStatus } from './contracts/mcp-status.js';
import type { McpConnectionSummary, McpSignInOptions } from './contracts/operation-types.js';
import { unknownServerError } from './connection/server-registry.js';

/** What the facade needs from its agent. */
export interface McpFacadeHost {
  /**
   * Runs a registry mutation: throws `REGISTRY_BUSY` unless the agent (and its children) are
   * idle, and keeps the agent from closing or mutating again until it settles.
   */
  exclusive<T>(operation: string, fn: () => Promise<T>): Promise<T>;
  /** A context for connecting outside a run (authorization, events). */
  contextFor(operation: string): ExecutorRunContext;
  /** Checks a runtime declaration (transports allowed, URL and headers). */
  check(declaration: ServerDeclaration): void;
  /**
   * A principal's sign-in to `server` was just stored (SPEC 15.4): the agent decides the
   * `auth` waits of that principal's parked runs on that server.
   */
  signedIn?(server: string, principal: string): Promise<void>;
}

/**
 * `agent.mcp`: the registry of MCP servers and its operations (SPEC section 7); connects
 * outside a run are authorized as `mcp_connect:<server>` like a run's.
 */
export class McpFacade extends McpOperations {
  readonly #manager: McpManager;
  private readonly host: McpFacadeHost;

  constructor(manager: McpManager, host: McpFacadeHost) {
    super(manager, (operation) => host.contextFor(operation));
    this.#manager = manager;
    this.host = host;
  }

  /**
   * Finishes a pull-mode sign-in with the callback URL, then connects the server. With
   * `{ principal }`, stores that principal's tokens (its connection opens on first use) and
   * decides the `auth` waits of that principal's parked runs on this server (SPEC 15.4), in
   * the agent's session store: `agent.resume(sessionId)` then continues each run.
   */
  override async submitOAuthCallback(
    name: string,
    callbackUrl: string | URL,
    options?: McpSignInOptions,
  ): Promise<McpConnectionSummary> {
    const summary = await super.submitOAuthCallback(name, callbackUrl, options);
    const principal = options?.principal;
    if (principal !== undefined) await this.host.signedIn?.(name, principal);
    return summary;
  }

  /** A local snapshot of every server: no I/O, no secrets. */
  list(): McpServerStatus[] {
    return this.#manager.list();
  }

  /**
   * Adds a server and connects it now (authorized as `mcp_connect:<name>`). Resolves once it
   * is connected and its tools are discovered; a candidate that fails is removed and the
   * error is thrown. A name that exists fails: unregister it first.
   */
  register(name: string, config: McpServerConfig | SdkMcpServer): Promise<McpServerStatus> {
    return this.host.exclusive('register', () => this.#register(name, config, 'registered'));
  }

  /**
   * Replaces a server's declaration. If the new declaration does not connect, the old one is
   * put back (pending: it reconnects at the next run) and the error is thrown.
   */
  update(name: string, config: McpServerConfig | SdkMcpServer): Promise<McpServerStatus> {
    return this.host.exclusive('update', async () => {
      const previous = this.#manager.declaration(name);
      if (!previous) throw unknownServerError(name);
      const declaration = declare(name, config, 'runtime', 'agent.mcp.update()');
      this.host.check(declaration);
      await this.#manager.remove(name);
      try {
        return await this.#register(name, config, 'updated');
      } catch (err) {
        if (!this.#manager.has(name)) this.#manager.add(previous);
        throw err;
      }
    });
  }

  /** Removes a server and closes its connection (files are not edited). */
  unregister(name: string): Promise<void> {
    return this.host.exclusive('unregister', async () => {
      const ctx = this.host.contextFor('unregister');
      await this.#manager.remove(name, ctx.emit);
      ctx.emit(changed(name, 'unregistered', 'unregister'));
    });
  }

  async #register(
    name: string,
    config: McpServerConfig | SdkMcpServer,
    change: 'registered' | 'updated',
  ): Promise<McpServerStatus> {
    const declaration = declare(name, config, 'runtime', 'agent.mcp.register()');
    this.host.check(declaration);
    this.#manager.add(declaration);
    const ctx = this.host.contextFor(change === 'registered' ? 'register' : 'update');
    try {
      await this.#manager.connectOne(name, ctx);
    } catch (err) {
      if (this.#manager.has(name)) await this.#manager.remove(name, ctx.emit);
      throw err;
    }
    const status = this.#manager.list().find((s) => s.name === name);
    if (status?.status !== 'connected') {
      if (this.#manager.has(name)) await this.#manager.remove(name, ctx.emit);
      const code = status?.error?.code;
      throw new MusterError(
        code === 'TOOL_DENIED' ||
          code === 'TOOL_APPROVAL_REQUIRED' ||
          code === 'INVALID_CONFIGURATION'
          ? code
          : 'MCP_CONNECTION_FAILED',
        status?.error?.message ?? `Server '${name}' did not connect.`,
        { details: { server: name } },
      );
    }
    ctx.emit(changed(name, change, change === 'registered' ? 'register' : 'update'));
    return status;
  }
}

function changed(
  server: string,
  change: 'registered' | 'updated' | 'unregistered',
  runId: string,
): ExecutorEvent {
  return {
    type: 'mcp.server.changed',
    server,
    change,
    timestamp: new Date().toISOString(),
    sessionId: '',
    runId,
  } as ExecutorEvent;
}
