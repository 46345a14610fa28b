import { McpError } from '../../errors/index.js';

/** Whether Muster supports an MCP extension, and why not. */
export interface McpExtensionSupport {
  readonly name: string;
  readonly supported: boolean;
  readonly reason?: string;
}

/** What the official client 2.4.0 offers, and what Muster builds on it. */
const KNOWN: Readonly<Record<string, { supported: boolean; reason?: string }>> = {
  tasks: {
    supported: true,
    reason:
      'the Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) on 2026-07-28 connections over stdio and Streamable HTTP: a call the server makes a task of is polled to its end. Legacy connections (2025-11-25 and earlier) have no tasks: the task API of SEP-1686 is not spoken, and their tools marked execution.taskSupport "required" are hidden from the model and refused (MCP_EXTENSION_UNSUPPORTED)',
  },
  'subscriptions/listen': { supported: true },
  'input-required': { supported: true },
  elicitation: { supported: true },
  sampling: { supported: true },
  roots: { supported: true },
  apps: {
    supported: true,
    reason:
      'MCP Apps (io.modelcontextprotocol/ui): `muster studio` renders tool views in a sandboxed iframe; the agent advertises the extension only when `mcp.clientExtensions` declares it (the studio does), since a host without a UI cannot show views',
  },
  skills: {
    supported: false,
    reason:
      'the official client offers skills only as an experimental subpath; Muster does not use it yet',
  },
};

/** Reports whether an MCP extension is supported (unknown names are not). */
export function getMcpExtensionSupport(name: string): McpExtensionSupport {
  const known = KNOWN[name];
  return known
    ? { name, ...known }
    : { name, supported: false, reason: `'${name}' is not an MCP extension Muster knows` };
}

/**
 * Throws `MCP_EXTENSION_UNSUPPORTED` unless the extension is supported.
 *
 * @throws McpError `MCP_EXTENSION_UNSUPPORTED`
 */
export function assertMcpExtensionSupported(name: string): void {
  const s = getMcpExtensionSupport(name);
  if (!s.supported)
    throw new McpError(
      'MCP_EXTENSION_UNSUPPORTED',
      `The MCP extension '${name}' is not supported: ${s.reason}. Check getMcpExtensionSupport() before relying on it.`,
      { details: { extension: name } },
    );
}
