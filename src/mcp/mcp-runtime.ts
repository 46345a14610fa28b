import { MusterError } from '../errors/index.js';
import { musterHome } from '../util/index.js';
import type { PolicySubject } from '../policy/index.js';
import { parseMcpOptions } from './config/config-schema.js';
import { collectDeclarations, transportOf } from './config/config-sources.js';
import type { ServerDeclaration } from './config/config-sources.js';
import type { McpOptions } from './contracts/config-types.js';
import { McpFacade } from './mcp-facade.js';
import type { McpFacadeHost } from './mcp-facade.js';
import { MCP_DEFAULTS } from './contracts/mcp-defaults.js';
import type { Emit } from './contracts/mcp-defaults.js';
import type { McpEvent } from './contracts/mcp-events.js';
import { McpManager } from './operations/mcp-manager.js';
import { McpToolExecutor } from './operations/mcp-tool-executor.js';
import { checkRemoteDeclaration } from './config/remote-checks.js';
import { HANDLER_DEFAULTS } from './handlers/client-setup.js';
import type { McpElicitationHooks } from './contracts/handler-types.js';
import type { AgentSampler } from './handlers/sampling-handler.js';
import { urlElicitationResponder } from './handlers/url-elicitation.js';
import { answersElicitation } from './handlers/elicitation-handler.js';
import { McpResourceToolExecutor } from './operations/resource-tools.js';
import { FileVerdictCache } from './connection/verdict-cache.js';

/**
 * What the builder reads: the MCP options and declarations (as given, unchecked), and what an
 * agent adds (its hooks, its own model as a sampler, its policy's visibility).
 */
export interface McpRuntimeInput {
  readonly mcp?: unknown;
  readonly mcpServers?: unknown;
  readonly workdir?: string;
  /** The agent's elicitation hooks. */
  readonly hooks?: McpElicitationHooks;
  /** The agent's own model, for `mcp.handlers.sampling: 'agent'`. */
  readonly agentSampler?: AgentSampler;
  /** The policy's visibility (`policy.visibleTools`), for the resource tools' server check. */
  readonly isVisible?: (subject: PolicySubject) => boolean;
  /**
   * Runs once the MCP options are checked, before any declaration is read: a caller's own
   * checks go here, so a caller's bad input is reported in the same order as the options'.
   */
  readonly afterOptions?: (options: McpOptions) => void;
}

/**
 * The MCP side, assembled once for an agent and for a standalone `McpClientManager`: its
 * checked options, the manager (registry, connector, runner), its tool source and the facade.
 */
export interface McpRuntime {
  readonly options: McpOptions;
  /** The registry, connector and operation runner behind the facade and the executor. */
  readonly manager: McpManager;
  /** The tool executor of MCP tools (catalog entries with `info.source === 'mcp'`). */
  readonly executor: McpToolExecutor;
  readonly facade: McpFacade;
  /** The resource tools for the model, when `mcp.exposeResources` is true. */
  readonly resourceTools?: McpResourceToolExecutor;
}

/**
 * The one builder of the MCP side (an agent's and `McpClientManager`'s): validates the MCP
 * configuration (files once, constructor servers, options) and builds the registry and its
 * parts, the tool executor and the facade. Starts nothing and writes nothing.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for a refused option or declaration, and for
 * `mcp.handlers.sampling: 'agent'` without an agent's sampler.
 */
export function createMcpRuntime(
  input: McpRuntimeInput,
  host: Omit<McpFacadeHost, 'check'>,
  background: (event: McpEvent) => void,
): McpRuntime {
  const options = parseMcpOptions(input.mcp);
  if (options.handlers?.sampling === 'agent' && !input.agentSampler)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      "mcp.handlers.sampling 'agent' needs an agent: pass a sampling function to McpClientManager.",
    );
  input.afterOptions?.(options);
  const declarations = collectDeclarations({
    workdir: input.workdir ?? process.cwd(),
    home: musterHome(),
    strictConfig: options.strictConfig === true,
    mcpServers: input.mcpServers as Readonly<Record<string, unknown>> | undefined,
  });
  const check = (d: ServerDeclaration) => checkDeclaration(d, options);
  for (const d of declarations) {
    if (d.source === 'options') check(d);
    else checkRemoteDeclaration(d);
  }
  const authorize = (req: Parameters<ReturnType<McpFacadeHost['contextFor']>['authorize']>[0]) =>
    host.contextFor('mcp-request').authorize(req);
  const timeoutMs = options.handlerTimeoutMs ?? HANDLER_DEFAULTS.handlerTimeoutMs;
  const manager = new McpManager(
    declarations,
    options,
    background,
    new FileVerdictCache(musterHome()),
    undefined,
    {
      ...(options.handlers ? { handlers: options.handlers } : {}),
      ...(options.clientExtensions ? { extensions: options.clientExtensions } : {}),
      ...(input.hooks ? { hooks: input.hooks } : {}),
      authorize,
      ...(input.agentSampler ? { agentSampler: input.agentSampler } : {}),
      handlerTimeoutMs: timeoutMs,
      ...(options.samplingMaxTokens !== undefined
        ? { samplingMaxTokens: options.samplingMaxTokens }
        : {}),
    },
  );
  const elicitation = options.handlers?.elicitation;
  const responder = answersElicitation(elicitation, input.hooks)
    ? urlElicitationResponder(() => ({
        ...(elicitation ? { handler: elicitation } : {}),
        hooks: input.hooks ?? {},
        timeoutMs,
      }))
    : undefined;
  const facade = new McpFacade(manager, { ...host, check });
  return {
    options,
    manager,
    executor: new McpToolExecutor(manager, responder, background as Emit),
    facade,
    ...(options.exposeResources
      ? {
          resourceTools: new McpResourceToolExecutor(
            facade,
            manager.registry,
            manager.principals,
            authorize,
            input.isVisible,
          ),
        }
      : {}),
  };
}

/** Host-given declarations must use an allowed transport and a safe URL and headers. */
function checkDeclaration(d: ServerDeclaration, options: McpOptions): void {
  const type = transportOf(d.config);
  const allowed = options.transports ?? MCP_DEFAULTS.transports;
  if (!allowed.includes(type)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `MCP server '${d.name}' uses the ${type} transport, which mcp.transports (${allowed.join(', ')}) does not allow: add '${type}' to mcp.transports or remove the server.`,
      { details: { server: d.name } },
    );
  }
  checkRemoteDeclaration(d);
}
