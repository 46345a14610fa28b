import { MusterError } from '../errors/index.js';
import { musterHome } from '../util/index.js';
import { ToolPolicy } from '../policy/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { ExecutorRunContext } from '../tools/index.js';
import { parseMcpOptions } from './config/config-schema.js';
import { collectDeclarations } from './config/config-sources.js';
import type { McpOptions, McpServerConfig } from './contracts/config-types.js';
import type { McpElicitationHooks } from './contracts/handler-types.js';
import { McpFacade } from './mcp-facade.js';
import type { McpEvent } from './contracts/mcp-events.js';
import { McpManager } from './operations/mcp-manager.js';
import { McpOperations } from './operations/mcp-operations.js';
import type { McpServerStatus } from './contracts/mcp-status.js';
import { checkDeclaration } from './mcp-runtime.js';
import { checkRemoteDeclaration } from './config/remote-checks.js';
import { FileVerdictCache } from './connection/verdict-cache.js';

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
    mcpServers: Readonly<Record<string, McpServerConfig>> = {},
    options: McpClientManagerOptions = {},
  ) {
    const rest: Record<string, unknown> = { ...options };
    for (const k of MANAGER_KEYS) delete rest[k];
    const mcp = parseMcpOptions(rest);
    if (mcp.handlers?.sampling === 'agent')
      throw new MusterError(
        'INVALID_CONFIGURATION',
        "mcp.handlers.sampling 'agent' needs an agent: pass a sampling function to McpClientManager.",
      );
    const policy = new ToolPolicy(options.policy ?? { allow: ['mcp_connect:*'] });
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
      policy.authorize(req, { signal });
    const declarations = collectDeclarations({
      workdir: options.workdir ?? process.cwd(),
      home: musterHome(),
      strictConfig: mcp.strictConfig === true,
      mcpServers,
    });
    for (const d of declarations) {
      if (d.source === 'options') checkDeclaration(d, mcp);
      else checkRemoteDeclaration(d);
    }
    const manager = new McpManager(
      declarations,
      mcp,
      emit,
      new FileVerdictCache(musterHome()),
      undefined,
      {
        ...(mcp.handlers ? { handlers: mcp.handlers } : {}),
        ...(mcp.clientExtensions ? { extensions: mcp.clientExtensions } : {}),
        ...(options.hooks ? { hooks: options.hooks } : {}),
        authorize,
        ...(mcp.handlerTimeoutMs !== undefined ? { handlerTimeoutMs: mcp.handlerTimeoutMs } : {}),
        ...(mcp.samplingMaxTokens !== undefined
          ? { samplingMaxTokens: mcp.samplingMaxTokens }
          : {}),
      },
    );
    const contextFor = (operation: string): ExecutorRunContext => ({
      sessionId: '',
      runId: operation,
      signal,
      emit: (ev) => emit({ ...ev, runId: operation }),
      authorize,
    });
    super(manager, contextFor);
    this.#manager = manager;
    this.#facade = new McpFacade(manager, {
      exclusive: (_operation, fn) => fn(),
      contextFor,
      check: (d) => checkDeclaration(d, mcp),
    });
  }

  /** A local snapshot of every server: no I/O, no secrets. */
  list(): McpServerStatus[] {
    return this.#manager.list();
  }

  /** Adds a server and connects it now; a name that exists fails (unregister it first). */
  register(name: string, config: McpServerConfig): Promise<McpServerStatus> {
    return this.#facade.register(name, config);
  }

  /** Replaces a server's declaration (the old one is put back if the new one fails). */
  update(name: string, config: McpServerConfig): Promise<McpServerStatus> {
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
