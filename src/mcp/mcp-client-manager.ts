import { ToolPolicy } from '../policy/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { ExecutorRunContext } from '../tools/index.js';
import type { McpOptions, McpServerConfig } from './contracts/config-types.js';
import type { SdkMcpServer } from './servers/sdk-server.js';
import type { McpElicitationHooks } from './contracts/handler-types.js';
import type { McpFacade } from './mcp-facade.js';
import type { McpManager } from './operations/mcp-manager.js';
import { createMcpRuntime } from './mcp-runtime.js';
import type { McpEvent } from './contracts/mcp-events.js';
import { McpOperations } from './operations/mcp-operations.js';
import type { McpServerStatus } from './contracts/mcp-status.js';

/** Options of a standalone {@link McpClientManager}: `McpOptions` plus what an agent would give. */
export interface McpClientManagerOptions extends McpOptions {
  /**
   * Authorizes `mcp_connect:<server>` and `mcp_sampling:<server>`. Default: every
   * connection is allowed (the host that builds the manager chose its servers).
   */
  readonly policy?: PolicyOptions;
  /** Where `.muster/mcp.json` is looked up (unless `strictConfig`). Default `process.cwd()`. */
  readonly workdir?: string;
  /** Sees every event (statuses, discoveries, elicitations, sampling, diagnostics). */
  readonly onEvent?: (event: McpEvent) => void;
  /** The elicitation hooks. */
  readonly hooks?: McpElicitationHooks;
}

const MANAGER_KEYS = ['policy', 'workdir', 'onEvent', 'hooks'] as const;

/**
 * MCP without an agent (`muster-agent/mcp`): the same configuration, validation, transport
 * security, statuses, events and lifecycle as `agent.mcp`, and every operation of SPEC 7.6.
 * Constructing it validates everything and starts nothing.
 *
 * @example
 * const manager = new McpClientManager({ files: { command: 'mcp-files' } }, { strictConfig: true });
 * await manager.connectAll();
 * const { resources } = await manager.listResources('files');
 * await manager.close();
 */
export class McpClientManager extends McpOperations {
  readonly #manager: McpManager;
  readonly #facade: McpFacade;

  constructor(
    mcpServers: Readonly<Record<string, McpServerConfig | SdkMcpServer>> = {},
    options: McpClientManagerOptions = {},
  ) {
    const rest: Record<string, unknown> = { ...options };
    for (const k of MANAGER_KEYS) delete rest[k];
    // built once the MCP options are checked (as before the one builder), before first use
    let policy: ToolPolicy | undefined;
    const buildPolicy = () => new ToolPolicy(options.policy ?? { allow: ['mcp_connect:*'] });
    const emit = (ev: unknown) => {
      if (options.onEvent) {
        try {
          options.onEvent(ev as McpEvent);
        } catch {
          // an observer's failure never changes an operation
        }
      }
    };
    const signal = new AbortController().signal;
    const authorize = (req: Parameters<ExecutorRunContext['authorize']>[0]) =>
      (policy ??= buildPolicy()).authorize(req, { signal });
    const contextFor = (operation: string): ExecutorRunContext => ({
      sessionId: '',
      runId: operation,
      signal,
      emit: (ev) => emit({ ...ev, runId: operation }),
      authorize,
    });
    const runtime = createMcpRuntime(
      {
        mcp: rest,
        mcpServers,
        ...(options.workdir !== undefined ? { workdir: options.workdir } : {}),
        ...(options.hooks ? { hooks: options.hooks } : {}),
        afterOptions: () => {
          policy = buildPolicy();
        },
      },
      { exclusive: (_operation, fn) => fn(), contextFor },
      emit,
    );
    super(runtime.manager, contextFor);
    this.#manager = runtime.manager;
    this.#facade = runtime.facade;
  }

  /** A local snapshot of every server: no I/O, no secrets. */
  list(): McpServerStatus[] {
    return this.#manager.list();
  }

  /** Adds a server and connects it now; a name that exists fails (unregister it first). */
  register(name: string, config: McpServerConfig | SdkMcpServer): Promise<McpServerStatus> {
    return this.#facade.register(name, config);
  }

  /** Replaces a server's declaration (the old one is put back if the new one fails). */
  update(name: string, config: McpServerConfig | SdkMcpServer): Promise<McpServerStatus> {
    return this.#facade.update(name, config);
  }

  /** Removes a server and closes its connection. */
  unregister(name: string): Promise<void> {
    return this.#facade.unregister(name);
  }

  /** Closes every connection and child process for good. Idempotent. */
  close(): Promise<void> {
    return this.#manager.close();
  }
}
