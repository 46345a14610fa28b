import type {
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  LoggingLevel,
  ReadResourceResult,
  Tool,
} from '@modelcontextprotocol/client';
import type { McpAuthenticateResult } from '../../auth/index.js';
import type { ExecutorRunContext } from '../../tools/index.js';
import * as auth from './auth-operations.js';
import { listen } from './listen-operation.js';
import type { McpManager } from './mcp-manager.js';
import type {
  McpCallToolOptions,
  McpCallToolTaskOptions,
  McpTaskHandle,
  McpConnectionInfo,
  McpConnectionSummary,
  McpSignInOptions,
  McpListenFilter,
  McpListenSubscription,
  McpOperationOptions,
  McpServerDiagnostics,
} from '../contracts/operation-types.js';
import * as prompts from './prompt-operations.js';
import * as resources from './resource-operations.js';
import { serverDiagnostics } from '../connection/server-diagnostics.js';
import * as server from './server-operations.js';
import { unknownServerError } from '../connection/server-registry.js';

/**
 * The operations `agent.mcp` and `McpClientManager` share (SPEC 7.6): lifecycle
 * (`connectAll`, `disconnectAll`, `getConnection`) and one method per MCP operation, each
 * with `{ signal, timeoutMs, maxTotalTimeoutMs, retry }`.
 */
export class McpOperations {
  constructor(
    private readonly manager: McpManager,
    /** The context connects outside a run use (authorization as `mcp_connect:<server>`, events). */
    private readonly contextFor: (operation: string) => ExecutorRunContext,
  ) {
    manager.ops.connect = (name) => manager.connectOne(name, contextFor('connect'));
  }

  /** Connects every server not connected yet (bounded, isolated); one summary per server. */
  async connectAll(): Promise<McpConnectionSummary[]> {
    await this.manager.prepare(this.contextFor('connectAll'));
    return this.manager.list().map((s) => ({
      name: s.name,
      status: s.status,
      ...(s.error ? { error: s.error } : {}),
    }));
  }

  /**
   * Closes every connection; servers stay registered and reconnect on the next use. A connect
   * in progress is waited for first, then closed too, so no server shows connected after it;
   * a background reconnect is cancelled.
   */
  async disconnectAll(): Promise<void> {
    const ctx = this.contextFor('disconnectAll');
    await Promise.allSettled([
      this.manager.pool.closeAll(),
      ...this.manager.registry.entries().map(async (e) => {
        const reconnecting = this.manager.connector.stopReconnect(e);
        if (e.busy) await e.busy.catch(() => undefined);
        const connection = e.connection;
        if (!connection && reconnecting && this.manager.registry.isLive(e)) {
          e.retry = true;
          this.manager.registry.setStatus(e, 'pending', ctx.emit);
        }
        if (!connection) return;
        this.manager.index.drop(e);
        delete e.connection;
        e.retry = true;
        this.manager.registry.setStatus(e, 'pending', ctx.emit);
        await connection.close();
      }),
    ]);
  }

  /**
   * The redacted stderr tail and exit of a stdio server's latest process, for the host only
   * (never in events, statuses or errors). Local, no I/O; empty for other transports.
   */
  diagnostics(name: string): McpServerDiagnostics {
    return serverDiagnostics(this.manager.registry, name);
  }

  /** Local facts about one server's connection: no I/O, no secrets. */
  getConnection(name: string): McpConnectionInfo {
    const e = this.manager.registry.get(name);
    if (!e) throw unknownServerError(name);
    const c = e.connection;
    return {
      name,
      status: e.status,
      ...(e.era ? { era: e.era } : {}),
      ...(e.protocolVersion ? { protocolVersion: e.protocolVersion } : {}),
      ...(c?.serverInfo ? { serverInfo: c.serverInfo } : {}),
      ...(c?.serverCapabilities ? { capabilities: c.serverCapabilities } : {}),
      ...(c?.instructions !== undefined ? { instructions: c.instructions } : {}),
      ...(e.error ? { error: { ...e.error } } : {}),
    };
  }

  /** Tells every connected server that the roots changed (`notifications/roots/list_changed`). */
  async notifyRootsChanged(): Promise<void> {
    await Promise.allSettled(
      this.manager.registry
        .entries()
        .map((e) => e.connection?.request((client) => client.sendRootsListChanged())),
    );
  }

  /**
   * Signs an OAuth server in (SPEC 8): silent when stored tokens or a refresh suffice; push
   * mode runs the host's `authorize`; pull mode returns the URL to open, finished by
   * {@link submitOAuthCallback}. With `{ principal }` (SPEC 15.4), that principal's sign-in:
   * its own tokens, and its own waiting login, apart from every other principal's.
   */
  authenticate(name: string, options?: McpSignInOptions): Promise<McpAuthenticateResult> {
    return auth.authenticate(this.manager, this.contextFor, name, options);
  }

  /**
   * Finishes a pull-mode sign-in with the callback URL, then connects the server. With
   * `{ principal }`, stores that principal's tokens (its connection opens on first use).
   */
  submitOAuthCallback(
    name: string,
    callbackUrl: string | URL,
    options?: McpSignInOptions,
  ): Promise<McpConnectionSummary> {
    return auth.submitOAuthCallback(this.manager, this.contextFor, name, callbackUrl, options);
  }

  /**
   * Forgets a server's local OAuth tokens (nothing is revoked remotely) and disconnects it.
   * With `{ principal }`, forgets only that principal's tokens (SPEC 15.4); without, only the
   * local user's.
   */
  logout(name: string, options?: McpSignInOptions): Promise<void> {
    return auth.logout(this.manager, this.contextFor, name, options);
  }

  /** Lists a server's tools under their own names. */
  listTools(name: string, options?: McpOperationOptions): Promise<Tool[]> {
    return server.listTools(this.manager.ops, name, options);
  }

  /**
   * Calls a tool directly (the host's call, outside the model's pipeline). The arguments are
   * checked against the tool's input schema first (`TOOL_ARGUMENTS_INVALID`, nothing sent);
   * `options.onProgress` receives the call's progress, which resets its timeout. A call the
   * server makes a task of (SPEC 15.3) is polled to its end; with `{ task: true }` the call
   * gives an {@link McpTaskHandle} instead (`{ taskId, status(), result(), cancel() }`).
   */
  callTool(
    name: string,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: McpCallToolTaskOptions,
  ): Promise<McpTaskHandle>;
  /** Calls a tool directly and gives its result (a task is polled to its end). */
  callTool(
    name: string,
    tool: string,
    args?: Readonly<Record<string, unknown>>,
    options?: McpCallToolOptions & { readonly task?: false },
  ): Promise<CallToolResult>;
  /** The implementation of both forms above. */
  callTool(
    name: string,
    tool: string,
    args: Readonly<Record<string, unknown>> = {},
    options?: McpCallToolOptions & { readonly task?: boolean },
  ): Promise<CallToolResult | McpTaskHandle> {
    if (options?.task === true) return this.manager.ops.callToolTask(name, tool, args, options);
    return server.callTool(this.manager.ops, name, tool, args, options);
  }

  /** Lists a server's resources. */
  listResources(name: string, options?: McpOperationOptions): Promise<ListResourcesResult> {
    return resources.listResources(this.manager.ops, name, options);
  }

  /** Lists a server's resource templates. */
  listResourceTemplates(
    name: string,
    options?: McpOperationOptions,
  ): Promise<ListResourceTemplatesResult> {
    return resources.listResourceTemplates(this.manager.ops, name, options);
  }

  /** Reads one resource. */
  readResource(
    name: string,
    uri: string,
    options?: McpOperationOptions,
  ): Promise<ReadResourceResult> {
    return resources.readResource(this.manager.ops, name, uri, options);
  }

  /** Lists a server's prompts. */
  listPrompts(name: string, options?: McpOperationOptions): Promise<ListPromptsResult> {
    return prompts.listPrompts(this.manager.ops, name, options);
  }

  /** Fetches one prompt. */
  getPrompt(
    name: string,
    prompt: string,
    args?: Readonly<Record<string, string>>,
    options?: McpOperationOptions,
  ): Promise<GetPromptResult> {
    return prompts.getPrompt(this.manager.ops, name, prompt, args, options);
  }

  /** Completes an argument of a prompt or resource template. */
  complete(
    name: string,
    params: CompleteRequestParams,
    options?: McpOperationOptions,
  ): Promise<CompleteResult> {
    return prompts.complete(this.manager.ops, name, params, options);
  }

  /** Checks that a server answers. */
  ping(name: string, options?: McpOperationOptions): Promise<void> {
    return server.ping(this.manager.ops, name, options);
  }

  /** Sets the lowest log level the server sends (`notifications/message`). */
  setLoggingLevel(name: string, level: LoggingLevel, options?: McpOperationOptions): Promise<void> {
    return server.setLoggingLevel(this.manager.ops, name, level, options);
  }

  /** Subscribes to updates of one resource. */
  subscribeResource(name: string, uri: string, options?: McpOperationOptions): Promise<void> {
    return resources.subscribeResource(this.manager.ops, name, uri, options);
  }

  /** Ends a resource subscription. */
  unsubscribeResource(name: string, uri: string, options?: McpOperationOptions): Promise<void> {
    return resources.unsubscribeResource(this.manager.ops, name, uri, options);
  }

  /** Opens a stream of change notifications (the modern subscription stream, or its legacy equivalent). */
  listen(
    name: string,
    filter: McpListenFilter,
    options?: McpOperationOptions,
  ): Promise<McpListenSubscription> {
    return listen(this.manager.ops, this.manager.hub, name, filter, options);
  }
}
