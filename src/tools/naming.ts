import { createHash } from 'node:crypto';
import { MusterError } from '../errors/index.js';

/** A model-facing tool name: 1–64 of `[A-Za-z0-9_-]`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** An MCP server's registry name: 1–24 of `[A-Za-z0-9_-]`, without `__`. */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,24}$/;
/** The longest model-facing name the model APIs accept. */
export const MAX_TOOL_NAME_LENGTH = 64;
/** The prefix reserved for MCP tools. */
export const MCP_TOOL_PREFIX = 'mcp__';

const HASH_LENGTH = 10;

/** True when `name` may be shown to a model as it is. */
export function isValidToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

/** Throws `INVALID_CONFIGURATION` unless `name` is a valid MCP server name. */
export function assertServerName(name: string): void {
  if (!SERVER_NAME_PATTERN.test(name) || name.includes('__')) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Invalid MCP server name ${JSON.stringify(name)}: use 1-24 letters, digits, '_' or '-', without '__'.`,
      { details: { server: name } },
    );
  }
}

/** Throws `INVALID_CONFIGURATION` unless `name` is a valid host tool name. */
export function assertHostToolName(name: string): void {
  if (!isValidToolName(name)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Invalid tool name ${JSON.stringify(name)}: use 1-64 letters, digits, '_' or '-'.`,
      { details: { tool: name } },
    );
  }
  if (name.startsWith(MCP_TOOL_PREFIX)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Tool name ${JSON.stringify(name)} starts with the reserved prefix '${MCP_TOOL_PREFIX}': rename the tool.`,
      { details: { tool: name } },
    );
  }
}

/** The model-facing name `mcp__<server>__<tool>` when it is valid as it stands. */
export function plainMcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${server}__${tool}`;
}

/**
 * The deterministic safe name of an MCP tool whose plain name does not fit: characters outside
 * `[A-Za-z0-9_-]` become `_`, the tool part is shortened, and `_<hash>` of the exact original
 * (server, tool, salt) is appended, so the result is valid, at most 64 characters, and distinct
 * for distinct inputs. `salt` > 0 is used only to step around a collision in one catalog.
 */
export function safeMcpToolName(server: string, tool: string, salt = 0): string {
  const prefix = plainMcpToolName(server, '');
  const hash = createHash('sha256')
    .update(`${server}\u0000${tool}\u0000${salt}`)
    .digest('hex')
    .slice(0, HASH_LENGTH);
  const room = MAX_TOOL_NAME_LENGTH - prefix.length - HASH_LENGTH - 1;
  const cleaned = tool.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, Math.max(0, room));
  return `${prefix}${cleaned}_${hash}`;
}

/** How names that do not fit are handled: given safe names, or rejected. */
export type NamingMode = 'safe' | 'strict';

/** One tool's original name and the model-facing name it was given. */
export interface AssignedToolName {
  readonly originalName: string;
  readonly name: string;
  /** True when the plain `mcp__<server>__<tool>` name did not fit. */
  readonly renamed: boolean;
}

/**
 * Gives every tool of one server a model-facing name: the plain name when it is valid, else a
 * safe name. Names are unique within the result by construction. In `strict` mode a name that
 * does not fit fails with `INVALID_CONFIGURATION`; duplicate originals fail with
 * `TOOL_NAME_CONFLICT`.
 */
export function assignMcpToolNames(
  server: string,
  tools: readonly string[],
  mode: NamingMode = 'safe',
): AssignedToolName[] {
  assertServerName(server);
  const seen = new Set<string>();
  const taken = new Set<string>();
  const result: AssignedToolName[] = [];
  const pending: string[] = [];
  for (const tool of tools) {
    if (seen.has(tool)) {
      throw new MusterError(
        'TOOL_NAME_CONFLICT',
        `Server '${server}' lists the tool ${JSON.stringify(tool)} twice: fix the server's tool list.`,
        { details: { server, tool } },
      );
    }
    seen.add(tool);
    const plain = plainMcpToolName(server, tool);
    // A server ending in '_' or a tool starting with '_' would make the '__' separator
    // ambiguous (server 'a' + tool '_b' and server 'a_' + tool 'b' are both 'mcp__a___b').
    const unambiguous = !server.endsWith('_') && !tool.startsWith('_');
    if (tool.length > 0 && unambiguous && isValidToolName(plain)) taken.add(plain);
    else pending.push(tool);
  }
  if (pending.length > 0 && mode === 'strict') {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Server '${server}' has tool names that do not fit the model-facing pattern (${pending
        .slice(0, 3)
        .map((t) => JSON.stringify(t))
        .join(', ')}): rename them on the server, or use mcp.names 'safe'.`,
      { details: { server, tools: pending.slice(0, 20) } },
    );
  }
  const safe = new Map<string, string>();
  for (const tool of pending) {
    let salt = 0;
    let name = safeMcpToolName(server, tool, salt);
    while (taken.has(name)) name = safeMcpToolName(server, tool, ++salt);
    taken.add(name);
    safe.set(tool, name);
  }
  for (const tool of tools) {
    const renamed = safe.get(tool);
    result.push({
      originalName: tool,
      name: renamed ?? plainMcpToolName(server, tool),
      renamed: renamed !== undefined,
    });
  }
  return result;
}
