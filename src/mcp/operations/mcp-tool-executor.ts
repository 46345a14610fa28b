import type {
  ExecutorRunContext,
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolInfo,
  ToolReturn,
} from '../../tools/index.js';
import { ToolError } from '../../errors/index.js';
import { raceAbort } from '../../util/index.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import type { McpManager } from './mcp-manager.js';
import { urlElicitationsOf } from '../handlers/url-elicitation.js';
import type { UrlElicitationResponder } from '../handlers/url-elicitation.js';

const RECENT_RUNS = 256;

/**
 * MCP as a tool source: the tools of connected servers, each executed on its server under its
 * original name. Connecting and refreshing happen in `prepareRun`, before a run's catalog is fixed.
 */
export class McpToolExecutor implements ToolExecutor {
  /**
   * A call rejects at once on abort: the official client rejects its request when the signal
   * aborts, and every other wait on the way is bounded by the same signal.
   */
  readonly settlesOnAbort = true;
  /** The contexts of recent runs, so server requests during a call reach that run. */
  readonly #runs = new Map<string, ExecutorRunContext>();

  constructor(
    private readonly manager: McpManager,
    private readonly onUrlElicitation?: UrlElicitationResponder,
    private readonly background: Emit = () => undefined,
  ) {}

  listTools(): readonly ToolDefinition[] {
    return this.manager.index.definitions();
  }

  getToolInfo(name: string): ToolInfo {
    const origin = this.manager.index.resolve(name);
    return origin
      ? { source: 'mcp', server: origin.server, originalName: origin.originalName }
      : { source: 'mcp' };
  }

  prepareRun(ctx: ExecutorRunContext): Promise<void> {
    this.#runs.delete(ctx.runId);
    // the agent calls finishRun when the run ends; a run's context is never looked up once its
    // signal has aborted (see #runOf), so no abort listener is needed per run
    if (!ctx.signal.aborted) this.#runs.set(ctx.runId, ctx);
    while (this.#runs.size > RECENT_RUNS) this.#runs.delete(this.#runs.keys().next().value!);
    return this.manager.prepare(ctx);
  }

  /**
   * Forgets a finished run's context (its event sink, signal and authorizer), so a server
   * request that arrives later goes to the background, never into the finished run.
   */
  finishRun(runId: string, ctx?: ExecutorRunContext): void {
    if (ctx === undefined || this.#runs.get(runId) === ctx) this.#runs.delete(runId);
  }

  /** The context of a run still in progress: an aborted run's is forgotten. */
  #runOf(runId: string): ExecutorRunContext | undefined {
    const run = this.#runs.get(runId);
    if (run?.signal.aborted) {
      this.#runs.delete(runId);
      return undefined;
    }
    return run;
  }

  async execute(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    const address = this.manager.index.resolve(name) ?? this.#reconnecting(name);
    if (!address) {
      throw new ToolError(
        'TOOL_EXECUTION_FAILED',
        `The server of '${name}' is not connected; the call was not sent.`,
        { toolName: name, details: { reason: 'not-sent' } },
      );
    }
    const run = this.#runOf(ctx.runId);
    const emit = run?.emit ?? this.background;
    const end = this.manager.inFlight.begin(address.server, {
      sessionId: ctx.sessionId,
      runId: ctx.runId,
      callId: ctx.callId,
      signal: ctx.signal,
      emit,
      ...(run ? { authorize: run.authorize } : {}),
    });
    try {
      return await this.#call(address, name, input, ctx);
    } catch (err) {
      const urls = urlElicitationsOf(err);
      if (!urls || !this.onUrlElicitation) throw err;
      // the host's elicitation handler may not watch the signal: an abort still ends the call
      return raceAbort(
        this.onUrlElicitation(address.server, urls, ctx, emit),
        ctx.signal,
        `Tool '${name}'`,
      );
    } finally {
      end();
    }
  }

  /**
   * The address of a tool whose server is reconnecting in the background (with
   * `mcp.reconnect.enabled`): its call waits for the reconnect and is sent once after it.
   */
  #reconnecting(name: string): { server: string; originalName: string } | undefined {
    const lost = this.manager.index.lostAddress(name);
    return lost && this.manager.runner.reconnecting(lost.entry)
      ? { server: lost.entry.name, originalName: lost.originalName }
      : undefined;
  }

  async #call(
    address: { server: string; originalName: string },
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    const result = await this.manager.runner.callTool(address.server, address.originalName, input, {
      toolName: name,
      signal: ctx.signal,
      onProgress: (p) =>
        ctx.reportProgress({
          progress: p.progress,
          ...(p.total !== undefined ? { total: p.total } : {}),
          ...(p.message !== undefined ? { message: p.message } : {}),
        }),
    });
    return result as unknown as ToolReturn;
  }

  close(): Promise<void> {
    return this.manager.close();
  }
}
