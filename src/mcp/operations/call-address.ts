import type { ToolExecutionContext } from '../../tools/index.js';
import { runScopeOf } from '../../tools/index.js';
import { raceAbort } from '../../util/index.js';
import type { ToolAddress } from '../connection/tool-index.js';
import type { McpManager } from './mcp-manager.js';

/**
 * Where a model's call to the tool `name` goes, connecting its server first when its
 * connection was lost and nothing reconnects it (SPEC 7.4, "reconnected when it is next
 * used"):
 * - a published tool: its address;
 * - a tool whose server is reconnecting in the background (`mcp.reconnect.enabled`): its
 *   former address (the runner waits for the reconnect, within the call's bounds);
 * - a tool whose server was lost and is marked to be tried again (reconnect off, or its
 *   attempts ran out): the server is connected now, as a direct call connects on first use
 *   and a run's start would (a connect in flight is joined), and the tool's address after it;
 * - otherwise (never published, the server removed, blocked, or still not connected after
 *   the connect): undefined, and the call is not sent.
 *
 * Inside a run the connect is authorized as `mcp_connect:<server>` by the run's policy and
 * reported into the run; outside one (a host calling `execute` itself), as an operation of
 * `agent.mcp` is. The wait ends at once when the call's signal aborts.
 */
export async function callAddress(
  manager: McpManager,
  name: string,
  ctx: ToolExecutionContext,
): Promise<ToolAddress | undefined> {
  const { index, registry, runner } = manager;
  const published = index.resolve(name);
  if (published) return published;
  const lost = index.lostAddress(name);
  if (!lost || !registry.isLive(lost.entry)) return undefined;
  const e = lost.entry;
  if (runner.reconnecting(e)) return { server: e.name, originalName: lost.originalName };
  if (e.blocked || !(e.busy || e.retry)) return undefined;
  const run = runScopeOf(ctx);
  const connect = run ? manager.connectOne(e.name, run) : manager.ops.connect?.(e.name);
  if (connect) await raceAbort(connect, ctx.signal, `Tool '${name}'`);
  return index.resolve(name);
}
