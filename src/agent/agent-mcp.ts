import { MusterError } from '../errors/index.js';
import {
  FileVerdictCache,
  collectDeclarations,
  McpFacade,
  McpManager,
  McpToolExecutor,
  musterHome,
  parseMcpOptions,
  transportOf,
  MCP_DEFAULTS,
} from '../mcp/index.js';
import type { McpEvent, McpFacadeHost, McpOptions, ServerDeclaration } from '../mcp/index.js';
import { checkRemoteDeclaration } from '../mcp/remote-checks.js';
import type { AgentOptions } from './agent-options.js';

/** The MCP parts of an agent. */
export interface AgentMcpParts {
  readonly options: McpOptions;
  readonly manager: McpManager;
  readonly executor: McpToolExecutor;
  readonly facade: McpFacade;
}

/**
 * Validates MCP configuration (files once, constructor servers, options) and builds the
 * registry, its tool executor and the `agent.mcp` facade. Starts nothing.
 */
export function createAgentMcp(
  options: AgentOptions,
  host: Omit<McpFacadeHost, 'check'>,
  background: (event: McpEvent) => void,
): AgentMcpParts {
  const mcpOptions = parseMcpOptions(options.mcp);
  const declarations = collectDeclarations({
    workdir: options.workdir ?? process.cwd(),
    home: musterHome(),
    strictConfig: mcpOptions.strictConfig === true,
    mcpServers: options.mcpServers as Readonly<Record<string, unknown>> | undefined,
  });
  const check = (d: ServerDeclaration) => checkDeclaration(d, mcpOptions);
  for (const d of declarations) {
    if (d.source === 'options') check(d);
    else checkRemoteDeclaration(d);
  }
  const manager = new McpManager(
    declarations,
    mcpOptions,
    background,
    new FileVerdictCache(musterHome()),
  );
  const executor = new McpToolExecutor(manager);
  const facade = new McpFacade(manager, { ...host, check });
  return { options: mcpOptions, manager, executor, facade };
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
