import { MusterError } from '../errors/index.js';
import type { ExecutorRunContext } from '../tools/index.js';
import { declare } from './config-sources.js';
import type { ServerDeclaration } from './config-sources.js';
import type { McpServerConfig } from './config-types.js';
import type { McpManager } from './mcp-manager.js';
import type { McpServerStatus } from './mcp-status.js';

/** What the facade needs from its agent. */
export interface McpFacadeHost {
  /** Throws `REGISTRY_BUSY` unless the agent and its children are idle. */
  assertIdle(operation: string): void;
  /** A context for connecting outside a run (authorization, events). */
  contextFor(operation: string): ExecutorRunContext;
  /** Checks a runtime declaration (transports allowed, URL and headers). */
  check(declaration: ServerDeclaration): void;
}

/** `agent.mcp`: the registry of MCP servers (SPEC section 7). */
export class McpFacade {
  constructor(
    private readonly manager: McpManager,
    private readonly host: McpFacadeHost,
  ) {}

  /** A local snapshot of every server: no I/O, no secrets. */
  list(): McpServerStatus[] {
    return this.manager.list();
  }

  /**
   * Adds a server and connects it now (authorized as `mcp_connect:<name>`). Resolves once it
   * is connected and its tools are discovered; a candidate that fails is removed and the
   * error is thrown. A name that exists fails: unregister it first.
   */
  async register(name: string, config: McpServerConfig): Promise<McpServerStatus> {
    return this.#register(name, config, 'registered');
  }

  async #register(
    name: string,
    config: McpServerConfig,
    change: 'registered' | 'updated',
  ): Promise<McpServerStatus> {
    this.host.assertIdle('register');
    const declaration = declare(name, config, 'runtime', 'agent.mcp.register()');
    this.host.check(declaration);
    this.manager.add(declaration);
    const ctx = this.host.contextFor('register');
    await this.manager.connectOne(name, ctx);
    const status = this.manager.list().find((s) => s.name === name)!;
    if (status.status !== 'connected') {
      await this.manager.remove(name, ctx.emit);
      throw new MusterError(
        status.error?.code === 'TOOL_DENIED' || status.error?.code === 'TOOL_APPROVAL_REQUIRED'
          ? status.error.code
          : 'MCP_CONNECTION_FAILED',
        status.error?.message ?? `Server '${name}' did not connect.`,
        { details: { server: name } },
      );
    }
    ctx.emit({
      type: 'mcp.server.changed',
      server: name,
      change,
      timestamp: new Date().toISOString(),
      sessionId: '',
      runId: '',
    } as never);
    return status;
  }

  /** Replaces a server's declaration: unregisters it, then registers the new one. */
  async update(name: string, config: McpServerConfig): Promise<McpServerStatus> {
    this.host.assertIdle('update');
    if (!this.manager.has(name))
      throw new MusterError('INVALID_CONFIGURATION', `No MCP server is registered as '${name}'.`);
    const declaration = declare(name, config, 'runtime', 'agent.mcp.update()');
    this.host.check(declaration);
    await this.manager.remove(name);
    return this.#register(name, config, 'updated');
  }

  /** Removes a server and closes its connection (files are not edited). */
  async unregister(name: string): Promise<void> {
    this.host.assertIdle('unregister');
    const ctx = this.host.contextFor('unregister');
    await this.manager.remove(name, ctx.emit);
    ctx.emit({
      type: 'mcp.server.changed',
      server: name,
      change: 'unregistered',
      timestamp: new Date().toISOString(),
      sessionId: '',
      runId: '',
    } as never);
  }
}
