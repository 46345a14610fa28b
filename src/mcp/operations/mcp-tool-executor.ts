import type {
  ExecutorRunContext,
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolInfo,
  ToolReturn,
} from '../../tools/index.js';
import { OWN_EXECUTOR_FACTS, OWN_RUN_VIEW, callParkingOf, runScopeOf } from '../../tools/index.js';
import type { RunViewSource } from '../../tools/index.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ToolCallOptions } from '../connection/operation-runner.js';
import type { ToolAddress } from '../connection/tool-index.js';
import { principalContextOf, principalTarget } from './principal-address.js';
import type { PrincipalTarget } from './principal-address.js';
import { PrincipalToolView } from './principal-tool-view.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import { callAddress } from './call-address.js';
import { callWithInputRounds } from './input-rounds.js';
import type { OwnExecutor, OwnExecutorFacts, ToolTaskEvent } from '../../tools/index.js';
import type { TaskStatusReport } from '../tasks/index.js';
import { ToolError, isAgentClosed } from '../../errors/index.js';
import { CallParkSignal } from '../../tools/index.js';
import type { ParkedTask, TaskResumption } from '../../tools/index.js';
import { TaskStillRunning } from '../contracts/task-types.js';
import type { CapturedTask } from '../contracts/task-types.js';
import { raceAbort } from '../../util/index.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import type { McpManager } from './mcp-manager.js';
import { urlElicitationsOf } from '../handlers/url-elicitation.js';
import type { UrlElicitationResponder } from '../handlers/url-elicitation.js';

/** The options of one send of a call (a round of it, with input requests answered). */
type SendOptions = Pick<
  ToolCallOptions,
  'onProgress' | 'round' | 'onTask' | 'park' | 'onAccepted' | 'idempotencyKey'
> & {
  readonly toolName: string;
  readonly signal: AbortSignal;
};

/** Sends one call (one round of it). */
type Send = (options: SendOptions) => Promise<CallToolResult>;

/**
 * One call's send options: made with `new`, not as an object literal. V8 moves the objects of a
 * literal whose objects tend to outlive a young-generation GC straight to old space
 * (allocation-site pretenuring), and a call's options live across its I/O wait. Dead in old
 * space, they would hold their callbacks, and through them the call and its run, across every
 * young-generation GC until a full one (docs/performance.md, "What kept every run alive").
 */
class CallSendOptions implements SendOptions {
  declare park?: SendOptions['park'];
  declare onAccepted?: SendOptions['onAccepted'];
  declare idempotencyKey?: string;
  declare round?: SendOptions['round'];

  constructor(
    readonly toolName: string,
    readonly signal: AbortSignal,
    readonly onTask: NonNullable<SendOptions['onTask']>,
    readonly onProgress: NonNullable<SendOptions['onProgress']>,
  ) {}

  /** These options for one round of the call (a copy: `{ ...this, round }` on Node 20 costs a hidden class per call). */
  withRound(round: NonNullable<SendOptions['round']>): CallSendOptions {
    const copy = new CallSendOptions(this.toolName, this.signal, this.onTask, this.onProgress);
    if (this.park) copy.park = this.park;
    if (this.onAccepted) copy.onAccepted = this.onAccepted;
    if (this.idempotencyKey) copy.idempotencyKey = this.idempotencyKey;
    copy.round = round;
    return copy;
  }
}

/** Polls on the task a call became in an earlier run, instead of sending it (SPEC 15.3). */
type ResumeTask = (
  task: TaskResumption,
  options: SendOptions,
  answers: Readonly<Record<string, unknown>> | undefined,
) => Promise<CallToolResult>;

/** A task's handle as its `task` wait stores it. */
function parkedTaskOf(
  server: string,
  task: CapturedTask,
  acceptedAt: number,
  polledAt?: number,
): ParkedTask {
  return {
    server,
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    ttlMs: task.ttlMs,
    ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {}),
    acceptedAt: new Date(acceptedAt).toISOString(),
    ...(polledAt !== undefined ? { polledAt: new Date(polledAt).toISOString() } : {}),
  };
}

/**
 * MCP as a tool source: the tools of connected servers, each executed on its server under its
 * original name. Connecting and refreshing happen in `prepareRun`, before a run's catalog is
 * fixed; a server lost during the run is connected again by its next call
 * ({@link callAddress}). A call reaches its run (events, approvals, sampling usage) through
 * the call's own scope: nothing is kept per run, so nothing has to be forgotten when one ends.
 */
export class McpToolExecutor implements ToolExecutor, OwnExecutor, RunViewSource {
  /**
   * A call rejects at once on abort: the official client rejects its request when the signal
   * aborts, and every other wait on the way is bounded by the same signal. Arguments are not
   * read-only: an in-process server's handler receives the object itself.
   */
  // its listing is the tool index's, a new frozen array whenever a server's tools change
  readonly [OWN_EXECUTOR_FACTS]: OwnExecutorFacts = { settlesOnAbort: true, stableListing: true };

  constructor(
    private readonly manager: McpManager,
    private readonly onUrlElicitation?: UrlElicitationResponder,
    private readonly background: Emit = () => undefined,
  ) {}

  /** The tools this executor offers now. Called once per run to fix that run's catalog. */
  listTools(): readonly ToolDefinition[] {
    return this.manager.index.definitions();
  }

  /** Safe facts about one tool; defaults to `{ source: 'executor' }`. */
  getToolInfo(name: string): ToolInfo {
    const origin = this.manager.index.resolve(name);
    return origin
      ? { source: 'mcp', server: origin.server, originalName: origin.originalName }
      : { source: 'mcp' };
  }

  /**
   * Called at the start of every run, before the run's catalog is fixed: the place to connect
   * what is not connected yet and to refresh stale listings (never during a run).
   */
  prepareRun(ctx: ExecutorRunContext): Promise<void> {
    return this.manager.prepare(ctx);
  }

  /**
   * The executor a run lists and calls: for a run acting for a principal, a view whose tools
   * of servers that authenticate per principal come from that principal's own connections
   * (SPEC 15.4); every other run sees this executor itself.
   */
  [OWN_RUN_VIEW](ctx: ExecutorRunContext): ToolExecutor {
    const principal = ctx.principal;
    if (principal === undefined) return this;
    if (!this.manager.registry.entries().some((e) => e.perPrincipal)) return this;
    return new PrincipalToolView(this, this.manager, ctx, principal);
  }

  /** Runs one call whose arguments already passed validation and policy. */
  execute(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    return this.executeListed(name, input, ctx, undefined);
  }

  /**
   * Runs one call; `listed` is where the run's catalog found the tool on a principal's own
   * connection. A call made for a principal whose tool is on a server that authenticates per
   * principal goes to that principal's connection, never the shared one.
   */
  async executeListed(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
    listed: ToolAddress | undefined,
  ): Promise<ToolReturn> {
    const principal = ctx.principal;
    const target =
      principal === undefined
        ? undefined
        : await principalTarget(this.manager, name, principalContextOf(principal, ctx), listed);
    // a published tool's address is read at once; only a lost one waits for its connect
    const address = target
      ? { server: target.entry.name, originalName: target.originalName }
      : (this.manager.index.resolve(name) ?? (await callAddress(this.manager, name, ctx)));
    if (!address) {
      throw new ToolError(
        'TOOL_EXECUTION_FAILED',
        `The server of '${name}' is not connected; the call was not sent.`,
        { toolName: name, details: { reason: 'not-sent' } },
      );
    }
    // a principal's call never goes to the shared connection of a server that signs each user
    // in (the address may have changed hands while it was found)
    if (
      !target &&
      principal !== undefined &&
      this.manager.registry.get(address.server)?.perPrincipal
    )
      throw new ToolError(
        'TOOL_EXECUTION_FAILED',
        `Server '${address.server}' signs each user in, and '${name}' was not found on this principal's own connection; the call was not sent.`,
        { toolName: name, details: { server: address.server, reason: 'not-sent' } },
      );
    const runner = this.manager.runner;
    const send: Send = target
      ? (options) => this.#callAs(target, name, input, options)
      : (options) => runner.callTool(address.server, address.originalName, input, options);
    // a call made outside a run (a host calling execute itself) reports to the background
    const run = runScopeOf(ctx);
    // a principal's own connection: its server's requests are attributed among its calls only
    const on = target?.ctx.principal;
    const end = this.manager.inFlight.begin(
      address.server,
      {
        sessionId: ctx.sessionId,
        runId: ctx.runId,
        callId: ctx.callId,
        signal: ctx.signal,
        ...(run ? { run } : {}),
      },
      on,
    );
    // a task polled on where the call went: the principal's own connection, or the shared one
    const resumeTask: ResumeTask = target
      ? ({ task, expired, cancelled }, options, answers) =>
          this.manager.principals.resumeTask(
            target.entry,
            target.ctx,
            target.originalName,
            { ...task, expired, ...(cancelled ? { cancelled } : {}) },
            options,
            answers,
          )
      : ({ task, expired, cancelled }, options, answers) =>
          runner.tasks.resume(
            address.server,
            address.originalName,
            { ...task, expired, ...(cancelled ? { cancelled } : {}) },
            options,
            answers,
          );
    try {
      return await this.#call(address.server, name, send, ctx, on, resumeTask);
    } catch (err) {
      const urls = urlElicitationsOf(err);
      if (!urls || !this.onUrlElicitation) throw err;
      // the host's elicitation handler may not watch the signal: an abort still ends the call
      return raceAbort(
        this.onUrlElicitation(address.server, urls, ctx, run ? run.emit : this.background),
        ctx.signal,
        `Tool '${name}'`,
      );
    } finally {
      end();
    }
  }

  /** One call on a principal's own connection, its failures classified as the runner's. */
  #callAs(
    target: PrincipalTarget,
    name: string,
    input: Record<string, unknown>,
    options: SendOptions,
  ): Promise<CallToolResult> {
    return this.manager.principals.callTool(target.entry, target.ctx, target.originalName, input, {
      toolName: name,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.round ? { round: options.round } : {}),
      ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
      ...(options.onTask ? { onTask: options.onTask } : {}),
      ...(options.park ? { park: options.park } : {}),
      ...(options.onAccepted ? { onAccepted: options.onAccepted } : {}),
    });
  }

  async #call(
    server: string,
    name: string,
    send: Send,
    ctx: ToolExecutionContext,
    principal: string | undefined,
    resumeTask: ResumeTask,
  ): Promise<ToolReturn> {
    const run = runScopeOf(ctx);
    const emit = run ? run.emit : this.background;
    const parking = callParkingOf(ctx);
    // a run whose store keeps waits parks on a task that runs long, or when its agent closes
    // (which never cancels); its handle is committed before the first poll
    const holdTask = parking?.canPark === true ? parking.holdTask : undefined;
    // one object, its optional fields set after: a literal of spreads costs a copy per part
    const options = new CallSendOptions(
      name,
      ctx.signal,
      // a call the server made a task of: its statuses as `tool.task` events of the call
      (report: TaskStatusReport) => {
        const event: ToolTaskEvent = {
          type: 'tool.task',
          timestamp: new Date().toISOString(),
          sessionId: ctx.sessionId,
          runId: ctx.runId,
          callId: ctx.callId,
          toolName: name,
          server,
          taskId: report.taskId,
          status: report.status,
          ...(report.statusMessage !== undefined ? { statusMessage: report.statusMessage } : {}),
        };
        emit(event);
      },
      (p: { progress: number; total?: number; message?: string }) =>
        ctx.reportProgress({
          progress: p.progress,
          ...(p.total !== undefined ? { total: p.total } : {}),
          ...(p.message !== undefined ? { message: p.message } : {}),
        }),
    );
    if (parking?.canPark === true)
      options.park = { afterMs: this.manager.parkAfterMs, onAbort: isAgentClosed };
    if (holdTask)
      options.onAccepted = (task: CapturedTask, acceptedAt: number) =>
        holdTask(parkedTaskOf(server, task, acceptedAt));
    // the same on every send of the call, so a server can deduplicate (SPEC 15.5)
    if (ctx.sessionId && ctx.callId) options.idempotencyKey = `${ctx.sessionId}:${ctx.callId}`;
    try {
      // the task this call became before it parked: polled on, never sent again
      if (parking?.task) {
        // with the answers a person gave to its input requests meanwhile, sent back first
        const answers = parking.resumption?.inputResponses;
        return (await resumeTask(parking.task, options, answers)) as unknown as ToolReturn;
      }
      // a run that can park answers a server's input requests itself (a person may answer
      // later); elsewhere the official client answers them in process. A legacy connection
      // has no input requests (they exist from 2026-07-28 on): a call on the shared one is sent
      // as it is (a principal's own connection is not looked at here: it keeps the rounds).
      const rounds =
        parking?.resumption !== undefined ||
        (parking?.canPark === true &&
          (principal !== undefined ||
            this.manager.registry.get(server)?.connection?.era !== 'legacy'));
      const result =
        parking && rounds
          ? await callWithInputRounds(
              {
                server,
                toolName: name,
                send: (round) => send(options.withRound(round)),
                handlers: () => this.manager.inputHandlers(server, principal),
                signal: ctx.signal,
                maxStateBytes: this.manager.maxResponseBytes ?? MCP_DEFAULTS.maxResponseBytes,
              },
              parking,
            )
          : await send(options);
      return result as unknown as ToolReturn;
    } catch (err) {
      // still running where the call may park: a task wait holds its handle
      if (err instanceof TaskStillRunning)
        throw new CallParkSignal({
          task: parkedTaskOf(server, err.task, err.acceptedAt, err.polledAt),
          ...(err.input ? { input: err.input } : {}),
        });
      throw err;
    }
  }

  /** Releases what the executor holds. Must be idempotent. */
  close(): Promise<void> {
    return this.manager.close();
  }
}
