import { ToolError } from '../../errors/index.js';
import type { ToolExecutionContext } from '../../tools/index.js';
import { runScopeOf } from '../../tools/index.js';
import type { PrincipalContext } from '../connection/principal-connections.js';
import type { ServerEntry } from '../connection/server-entry.js';
import type { ToolAddress } from '../connection/tool-index.js';
import type { McpManager } from './mcp-manager.js';

/** A tool on a principal's own connection: its server's entry and the name there. */
export interface PrincipalTarget {
  readonly entry: ServerEntry;
  readonly originalName: string;
  readonly ctx: PrincipalContext;
}

/** The principal context of a call made for `principal` (its run authorizes connecting). */
export function principalContextOf(
  principal: string,
  ctx: Pick<ToolExecutionContext, 'signal'>,
): PrincipalContext {
  const run = runScopeOf(ctx as ToolExecutionContext);
  return { principal, signal: ctx.signal, ...(run ? { run } : {}) };
}

/**
 * Where a call made for `principal` goes when its tool is on a server that authenticates per
 * principal (SPEC 15.4): that principal's own connection, never the shared one. `listed` is
 * the address the run's catalog took from the principal's listing. Otherwise the tool's
 * server is found by its name: the shared listing says which server a name belongs to (only
 * that: the tool is then looked up on the principal's connection), else every server that
 * authenticates per principal is asked for the principal's listing. Undefined when the tool
 * is on a shared server (or nowhere): the caller routes it as any call.
 *
 * @throws ToolError `TOOL_EXECUTION_FAILED` (not sent) when the tool's server does not show
 *   it to this principal; the open's error (`MCP_AUTH_REQUIRED` for a principal without a
 *   working sign-in) when no listing could be read and no server has the tool.
 */
export async function principalTarget(
  manager: McpManager,
  name: string,
  ctx: PrincipalContext,
  listed?: ToolAddress,
): Promise<PrincipalTarget | undefined> {
  const { registry, index } = manager;
  const known = listed ?? index.resolve(name) ?? lostAddress(manager, name);
  if (known) {
    const entry = registry.get(known.server);
    if (!entry?.perPrincipal) return undefined;
    if (listed) return { entry, originalName: listed.originalName, ctx };
    return lookUp(manager, entry, name, ctx);
  }
  let failure: { error: unknown } | undefined;
  for (const entry of registry.entries()) {
    if (!entry.perPrincipal || entry.blocked) continue;
    try {
      const found = (await manager.principals.tools(entry, ctx)).find((t) => t.name === name);
      if (found) return { entry, originalName: found.originalName, ctx };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
  return undefined;
}

async function lookUp(
  manager: McpManager,
  entry: ServerEntry,
  name: string,
  ctx: PrincipalContext,
): Promise<PrincipalTarget> {
  const found = (await manager.principals.tools(entry, ctx)).find((t) => t.name === name);
  if (found) return { entry, originalName: found.originalName, ctx };
  throw new ToolError(
    'TOOL_EXECUTION_FAILED',
    `Server '${entry.name}' does not show '${name}' to this principal; the call was not sent.`,
    { toolName: name, details: { server: entry.name, reason: 'not-sent' } },
  );
}

function lostAddress(manager: McpManager, name: string): ToolAddress | undefined {
  const lost = manager.index.lostAddress(name);
  return lost ? { server: lost.entry.name, originalName: lost.originalName } : undefined;
}
