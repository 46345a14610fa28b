import type {
  ExecutorRunContext,
  OwnExecutor,
  OwnExecutorFacts,
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolInfo,
  ToolReturn,
} from '../../tools/index.js';
import { OWN_EXECUTOR_FACTS, RunScope } from '../../tools/index.js';
import { needsSignIn } from '../connection/auth-connect.js';
import type { ServerEntry } from '../connection/server-entry.js';
import type { PrincipalContext } from '../connection/principal-connections.js';
import { emitDiagnostic } from '../connection/server-events.js';
import type { ToolAddress } from '../connection/tool-index.js';
import type { McpManager } from './mcp-manager.js';

/** What the view calls on the MCP tool executor (see `McpToolExecutor.executeListed`). */
export interface ListedExecutor extends OwnExecutor {
  getToolInfo(name: string): ToolInfo;
  executeListed(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
    listed: ToolAddress | undefined,
  ): Promise<ToolReturn>;
}

/**
 * What one run acting for a principal sees of the MCP tools (SPEC 15.4): the tools of shared
 * servers as every run does, and, for each server that authenticates per principal, the tools
 * that server lists on the principal's own connection (opened, and authorized as
 * `mcp_connect:<server>` by the run's policy, when it is not open yet). A server whose
 * connection cannot open for the principal (no sign-in, say) shows no tools in this run and
 * reports an `mcp.diagnostic` into it; its shared listing is never shown instead. Calls go to
 * the executor with the address the listing gave.
 */
export class PrincipalToolView implements ToolExecutor, OwnExecutor {
  readonly [OWN_EXECUTOR_FACTS]: OwnExecutorFacts;
  /** Where each tool of the principal's own listings leads. */
  readonly #listed = new Map<string, ToolAddress>();
  readonly #ctx: PrincipalContext;

  constructor(
    private readonly executor: ListedExecutor,
    private readonly manager: McpManager,
    private readonly run: ExecutorRunContext,
    principal: string,
  ) {
    // a run's own listing, made anew for each run
    this[OWN_EXECUTOR_FACTS] = { ...executor[OWN_EXECUTOR_FACTS], stableListing: false };
    this.#ctx = { principal, signal: run.signal, run };
  }

  /** The run's MCP tools: shared servers' and the principal's own listings. */
  async listTools(): Promise<readonly ToolDefinition[]> {
    const { index, registry, principals } = this.manager;
    const shared = index.definitions().filter((def) => {
      const at = index.resolve(def.name);
      return !(at && registry.get(at.server)?.perPrincipal);
    });
    const own = registry.entries().filter((e) => e.perPrincipal && !e.blocked);
    const listings = await Promise.all(
      own.map(async (e) => {
        try {
          return { e, tools: await principals.tools(e, this.#ctx) };
        } catch (err) {
          if (this.run.signal.aborted) throw err;
          emitDiagnostic(e, err, this.run.emit);
          await this.#signInMissing(e, err);
          return { e, tools: [] };
        }
      }),
    );
    const definitions = [...shared];
    for (const { e, tools } of listings) {
      for (const tool of tools) {
        if (!tool.modelVisible) continue;
        this.#listed.set(tool.name, { server: e.name, originalName: tool.originalName });
        definitions.push(tool.definition);
      }
    }
    return definitions;
  }

  /**
   * Tells the run that its principal has no working sign-in to `e` (SPEC 15.4), when Muster
   * signs the principal in there (`mcp.oauth[name].perPrincipal`) and `err` is for want of a
   * sign-in: the run may park on an `auth` wait (see `RunScope.needsSignIn`). A host provider's
   * server is not named: no sign-in of Muster's can fix it.
   */
  async #signInMissing(e: ServerEntry, err: unknown): Promise<void> {
    const scope = this.run instanceof RunScope ? this.run : undefined;
    if (!scope || e.perPrincipal?.kind !== 'oauth' || !e.principals || !needsSignIn(err)) return;
    const principal = this.#ctx.principal;
    const issuer = await e.principals
      .use(principal, (session) => session.knownIssuer())
      .catch(() => undefined);
    scope.needsSignIn({ server: e.name, ...(issuer !== undefined ? { issuer } : {}) });
  }

  /** Safe facts about one tool (its server and name there). */
  getToolInfo(name: string): ToolInfo {
    const at = this.#listed.get(name);
    return at
      ? { source: 'mcp', server: at.server, originalName: at.originalName }
      : this.executor.getToolInfo(name);
  }

  /** Runs one call (see {@link ListedExecutor.executeListed}). */
  execute(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    return this.executor.executeListed(name, input, ctx, this.#listed.get(name));
  }
}
