import { createHash } from 'node:crypto';
import { McpError, MusterError } from '../errors/index.js';
import type { ApprovalAnswer } from '../policy/index.js';
import type { SessionStore, SessionWaits, SessionWriteOptions, Wait } from '../session/index.js';
import type {
  CallWaits,
  InputResumption,
  SignInNeed,
  ParkedTask,
  SentTask,
  TaskResumption,
  ToolCallOutcome,
  WaitedDecision,
} from '../tools/index.js';
import { isoNow, newId } from '../util/index.js';
import type { AgentEvent } from './events.js';
import { isExpired, publicWait, sessionWaits, shownDecision } from './open-waits.js';

/** The default of `waits.ttlMs`: how long a wait may stay undecided (7 days). */
export const DEFAULT_WAIT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** How long waits last and what their expiry decides (SPEC 15.1). */
export interface WaitOptions {
  /** Milliseconds a wait may stay undecided (default 7 days). */
  readonly ttlMs?: number;
  /** What an expired approval decides at the next resume (default `deny`: `TOOL_DENIED`, reason `expired`). */
  readonly onExpiry?: 'deny' | 'cancel';
}

/** What a run's waits need of it. */
export interface RunWaitsContext {
  readonly sessionId: string;
  readonly runId: string;
  /** The user the run acts for (SPEC 15.4), stored with each of its waits. */
  readonly principal?: string | undefined;
  /** The run's (guarded) store. */
  readonly store: SessionStore;
  /** The store as the agent was given it (its identity; see `CallWaits.store`). */
  readonly origin: object;
  readonly options: WaitOptions | undefined;
  readonly emit: (event: AgentEvent) => void;
  /** The run's write options (its lease). */
  readonly writeOptions: () => SessionWriteOptions;
}

/**
 * One run's side of parking: the waits a resumed run found (decided, expired or still
 * pending), the decisions it applies to the calls that parked on them, and the waits its
 * calls park on now. A wait it took up is removed once the results it decided are committed.
 */
export class RunWaits implements CallWaits {
  readonly canPark: boolean;
  readonly store: object;
  /** The waits this run parked on, in the order its calls parked. */
  readonly parked: Wait[] = [];
  readonly #ctx: RunWaitsContext;
  /** The waits found when the run started, by the call they hold. */
  readonly #byCall = new Map<string, Wait[]>();
  readonly #taken = new Set<string>();
  /**
   * The `task` wait in the store for each call that became an MCP task (found, or held by
   * this run before its first poll): it stays until the call's result is committed.
   */
  readonly #tasks = new Map<string, Wait>();
  /**
   * The links to a delegated run's `task` waits kept in the store for each call that resumes
   * that run (found, or parked on by this run): they stay until the call's result is
   * committed, so a root that dies meanwhile resumes the delegated run again.
   */
  readonly #taskLinks = new Map<string, Wait[]>();

  /** The waits the session held when the run opened it. */
  readonly found: readonly Wait[];

  private constructor(ctx: RunWaitsContext, found: readonly Wait[]) {
    this.#ctx = ctx;
    this.canPark = ctx.store.waits !== undefined;
    this.store = ctx.origin;
    this.found = found;
    for (const wait of found)
      if (wait.callId !== undefined) {
        this.#byCall.set(wait.callId, [...(this.#byCall.get(wait.callId) ?? []), wait]);
        // a link to a delegated run's task wait is not this run's task: the delegated run polls
        if (wait.kind === 'task' && wait.task && !wait.child) this.#tasks.set(wait.callId, wait);
      }
  }

  /**
   * Removes the waits the run found from the store (under its lease), before the calls they
   * hold run again; their decisions stay with this run. A call whose wait is gone and whose
   * result was never committed is then an unknown outcome for a later resume, never a second
   * run of an approved call. The `task` waits of the calls in `pending` (those the resumed run
   * polls on) stay until their results are committed: a process that dies while polling
   * leaves them for the next resume, which polls again, never sending the call twice. So do
   * the links of those calls to a delegated run's `task` waits (the delegated run polls).
   */
  async takeUp(pending: ReadonlySet<string> = new Set()): Promise<void> {
    const waits = this.#ctx.store.waits;
    if (!waits || this.found.length === 0) return;
    const gone = this.found.filter(
      (w) => w.kind !== 'task' || w.callId === undefined || !pending.has(w.callId),
    );
    for (const w of gone)
      if (w.callId !== undefined && w.kind === 'task') this.#tasks.delete(w.callId);
    for (const w of this.found)
      if (w.kind === 'task' && w.child && w.callId !== undefined && pending.has(w.callId))
        this.#taskLinks.set(w.callId, [...(this.#taskLinks.get(w.callId) ?? []), w]);
    if (gone.length === 0) return;
    await waits.remove(
      this.#ctx.sessionId,
      gone.map((w) => w.id),
      this.#ctx.writeOptions(),
    );
  }

  /**
   * The task `callId` became in an earlier run, from its `task` wait (SPEC 15.3): polled on,
   * never sent again, whatever the call hashes to now (it was sent). `expired` once the wait
   * passed `waits.ttlMs`: one last poll, then the outcome is unknown.
   */
  taskFor(callId: string): TaskResumption | undefined {
    const wait = this.#tasks.get(callId);
    if (!wait?.task || wait.server === undefined || this.#taken.has(wait.id)) return undefined;
    this.#taken.add(wait.id);
    const { task } = wait;
    // decided `cancel` (a person, from any process): cancelled once, not polled
    const cancel =
      wait.status === 'decided' && wait.decision && 'decision' in wait.decision
        ? wait.decision.decision === 'cancel'
          ? wait.decision
          : undefined
        : undefined;
    if (cancel)
      this.#ctx.emit({
        type: 'wait.decided',
        ...this.#eventBase(wait, callId),
        applied: true,
        expired: false,
        ...decisionOf(wait),
      });
    return {
      task: {
        server: wait.server,
        taskId: task.taskId,
        status: task.status,
        ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
        createdAt: task.createdAt,
        ttlMs: task.ttlMs,
        ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {}),
        acceptedAt: task.acceptedAt,
        ...(task.polledAt !== undefined ? { polledAt: task.polledAt } : {}),
      },
      expired: isExpired(wait, Date.now()),
      ...(cancel
        ? {
            cancelled: {
              waitId: wait.id,
              ...(cancel.reason !== undefined ? { reason: cancel.reason } : {}),
            },
          }
        : {}),
    };
  }

  /**
   * The task `callId` became in an earlier run (its `task` wait, not taken up yet), with the
   * approval that let the call be sent: the call was sent, so the resumed run does not ask
   * whether to send it again (SPEC 15.3).
   */
  sentTask(callId: string): SentTask | undefined {
    const wait = this.#tasks.get(callId);
    if (!wait?.task || wait.server === undefined || this.#taken.has(wait.id)) return undefined;
    return {
      server: wait.server,
      taskId: wait.task.taskId,
      ...(wait.approvedBy ? { approvedBy: wait.approvedBy } : {}),
    };
  }

  /**
   * Commits the handle of the task `callId` just became (a pending `task` wait, under the
   * run's lease) before it is polled: a process that dies now leaves it for the next resume,
   * which polls on without deciding again whether to send the call (`approvedBy`, the
   * decided approval wait that let it be sent, is kept for the record).
   * Not an event: the run goes on; `wait.created` comes if it parks on it.
   */
  async holdTask(
    callId: string,
    toolName: string,
    fingerprint: string,
    task: ParkedTask,
    approvedBy?: Wait['approvedBy'],
  ): Promise<void> {
    const wait = this.#taskWait(callId, toolName, fingerprint, task, approvedBy);
    await this.#ctx.store.waits!.put(wait, this.#ctx.writeOptions());
    this.#tasks.set(callId, wait);
  }

  /**
   * Removes the `task` waits of the calls of `outcomes` that ended (their results are
   * committed by now); those that parked keep theirs.
   */
  async releaseTasks(outcomes: readonly ToolCallOutcome[]): Promise<void> {
    const waits = this.#ctx.store.waits;
    if (!waits || (this.#tasks.size === 0 && this.#taskLinks.size === 0)) return;
    const ended = outcomes.filter((o) => !o.parked).map((o) => o.callId);
    const done = ended.flatMap((callId) => {
      const wait = this.#tasks.get(callId);
      return [...(wait ? [wait] : []), ...(this.#taskLinks.get(callId) ?? [])];
    });
    if (done.length === 0) return;
    await waits.remove(
      this.#ctx.sessionId,
      done.map((w) => w.id),
      this.#ctx.writeOptions(),
    );
    for (const callId of ended) {
      this.#tasks.delete(callId);
      this.#taskLinks.delete(callId);
    }
  }

  /** When a wait made now was created and when it expires (`waits.ttlMs`), ISO 8601. */
  #lifetime(): { createdAt: string; expiresAt: string } {
    const now = Date.now();
    const ttl = this.#ctx.options?.ttlMs ?? DEFAULT_WAIT_TTL_MS;
    return {
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttl).toISOString(),
    };
  }

  /** Where waits made now go, and their lifetime; a store that keeps none cannot park `what`. */
  #newWaits(what: 'call' | 'run'): {
    into: SessionWaits;
    createdAt: string;
    expiresAt: string;
  } {
    const into = this.#ctx.store.waits;
    if (!into)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `The session store keeps no waits (SessionStore.waits): the ${what} cannot park.`,
      );
    return { into, ...this.#lifetime() };
  }

  /**
   * A `task` wait of `callId` holding `task`. When the call holds one already (found at resume,
   * or held before its first poll) it keeps that wait's id and lifetime: a task polled and
   * parked again and again must still reach its expiry (SPEC 15.1: one last poll, then
   * `TOOL_OUTCOME_UNKNOWN`), whatever the number of resumes.
   */
  #taskWait(
    callId: string,
    toolName: string,
    fingerprint: string,
    task: ParkedTask,
    approvedBy: Wait['approvedBy'],
  ): Wait {
    const { sessionId, runId, principal } = this.#ctx;
    const held = this.#tasks.get(callId);
    const fresh = this.#lifetime();
    const createdAt = held?.createdAt ?? fresh.createdAt;
    const expiresAt = held ? held.expiresAt : fresh.expiresAt;
    return {
      id: held?.id ?? newId('wait'),
      sessionId,
      runId,
      kind: 'task',
      callId,
      toolName,
      server: task.server,
      createdAt,
      ...(expiresAt !== undefined ? { expiresAt } : {}),
      fingerprint,
      status: 'pending',
      task: {
        taskId: task.taskId,
        status: task.status,
        ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
        createdAt: task.createdAt,
        ttlMs: task.ttlMs,
        ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {}),
        acceptedAt: task.acceptedAt,
        ...(task.polledAt !== undefined ? { polledAt: task.polledAt } : {}),
      },
      ...(approvedBy ? { approvedBy } : {}),
      ...(principal !== undefined ? { principal } : {}),
    };
  }

  /** The waits of a run: those its session holds (a resumed run takes them up). */
  static async open(ctx: RunWaitsContext): Promise<RunWaits> {
    return new RunWaits(ctx, await sessionWaits(ctx.store, ctx.sessionId));
  }

  /** The ids of the calls that parked and wait to be run again. */
  get waitingCalls(): ReadonlySet<string> {
    return new Set(this.#byCall.keys());
  }

  /**
   * The decision of a decided wait this call parked on, when its fingerprint is still
   * `fingerprint` (same arguments after hooks, tool definition and policy version).
   */
  decisionFor(callId: string, fingerprint: string): WaitedDecision | undefined {
    const wait = this.#byCall.get(callId)?.find((w) => w.kind === 'approval' && !w.child);
    if (!wait || this.#taken.has(wait.id)) return this.#approvedBefore(callId, fingerprint);
    this.#taken.add(wait.id);
    const expired = wait.status === 'pending' && isExpired(wait, Date.now());
    const base = this.#eventBase(wait, callId);
    if (wait.fingerprint !== fingerprint) {
      // the call, its tool or the policy changed: this decision is void, a fresh wait follows
      this.#ctx.emit({
        type: 'wait.decided',
        ...base,
        applied: false,
        expired,
        ...decisionOf(wait),
      });
      return undefined;
    }
    if (
      wait.status === 'decided' &&
      wait.decision &&
      'decision' in wait.decision &&
      wait.decision.decision !== 'cancel'
    ) {
      this.#ctx.emit({
        type: 'wait.decided',
        ...base,
        applied: true,
        expired: false,
        ...decisionOf(wait),
      });
      const d = wait.decision;
      const answer: ApprovalAnswer = {
        decision: d.decision,
        ...(d.reason !== undefined ? { reason: d.reason } : {}),
        ...(d.message !== undefined ? { message: d.message } : {}),
      };
      return {
        answer,
        waitId: wait.id,
        ...(d.reason !== undefined ? { reason: d.reason } : {}),
        ...(wait.decidedAt !== undefined ? { decidedAt: wait.decidedAt } : {}),
      };
    }
    if (expired) {
      this.#ctx.emit({ type: 'wait.decided', ...base, applied: true, expired: true });
      const reason = this.#ctx.options?.onExpiry === 'cancel' ? 'expired; cancelled' : 'expired';
      return { answer: { decision: 'deny', reason }, waitId: wait.id, reason };
    }
    return undefined;
  }

  /**
   * The approval a call had when it parked on a server's question or a delegated run: it
   * stands while the call still hashes the same (those waits stay for `inputFor`/`childFor`).
   */
  #approvedBefore(callId: string, fingerprint: string): WaitedDecision | undefined {
    const approved = this.#byCall
      .get(callId)
      ?.find((w) => w.approvedBy && w.fingerprint === fingerprint)?.approvedBy;
    if (!approved || approved.decision !== 'allow') return undefined;
    return {
      answer: {
        decision: 'allow',
        ...(approved.reason !== undefined ? { reason: approved.reason } : {}),
      },
      waitId: approved.waitId,
      ...(approved.reason !== undefined ? { reason: approved.reason } : {}),
      ...(approved.decidedAt !== undefined ? { decidedAt: approved.decidedAt } : {}),
    };
  }

  /**
   * The session of the delegated run (`asTool`) this call parked on, whose waits were all
   * decided or expired, when the call still hashes to its links' fingerprint: the call
   * resumes that run instead of starting another.
   */
  childFor(callId: string, fingerprint: () => string): string | undefined {
    const links = this.#byCall.get(callId)?.filter((w) => w.child && !this.#taken.has(w.id));
    if (!links || links.length === 0) return undefined;
    const now = Date.now();
    // the root's call, its tool or policy changed: its delegated run is not continued (it
    // stays parked in its own session) and the call starts a fresh one
    const applied = links.every((w) => w.fingerprint === fingerprint());
    for (const link of links) {
      this.#taken.add(link.id);
      // the decision itself is applied (and checked) by the delegated run when it resumes
      this.#ctx.emit({
        type: 'wait.decided',
        ...this.#eventBase(link, callId),
        applied,
        expired: isExpired(link, now),
      });
    }
    return applied ? links[0]!.child!.sessionId : undefined;
  }

  /**
   * The answers to a server's input requests this call parked on (`input_required`), when
   * every one is decided or expired and the call still hashes to their fingerprint
   * (`fingerprint` is computed only when the call has such waits). Undefined otherwise: the
   * call is then sent afresh.
   */
  inputFor(callId: string, fingerprint: () => string): InputResumption | undefined {
    const waits = this.#byCall
      .get(callId)
      ?.filter((w) => w.kind === 'elicitation' && !w.child && !this.#taken.has(w.id));
    if (!waits || waits.length === 0) return undefined;
    for (const w of waits) this.#taken.add(w.id);
    const now = Date.now();
    const current = fingerprint();
    // the call, its tool or the policy changed: the answers are void, the call is sent afresh
    const applied = waits.every((w) => w.fingerprint === current);
    const inputResponses: Record<string, unknown> = {};
    for (const wait of waits) {
      const expired = wait.status === 'pending' && isExpired(wait, now);
      this.#ctx.emit({
        type: 'wait.decided',
        ...this.#eventBase(wait, callId),
        applied,
        expired,
        ...decisionOf(wait),
      });
      Object.assign(inputResponses, wait.inputResponses);
      // an expired elicitation is cancelled (SPEC 15.1)
      const d = wait.decision && 'action' in wait.decision ? wait.decision : undefined;
      if (wait.inputKey !== undefined)
        inputResponses[wait.inputKey] = d
          ? { action: d.action, ...(d.content !== undefined ? { content: d.content } : {}) }
          : { action: 'cancel' };
    }
    if (!applied) return undefined;
    const first = waits[0]!;
    const reason = first.decision?.reason;
    return {
      ...(first.requestState !== undefined ? { requestState: first.requestState } : {}),
      inputResponses,
      decidedBy: {
        waitId: first.id,
        decision: first.decision && 'action' in first.decision ? first.decision.action : 'cancel',
        ...(reason !== undefined ? { reason } : {}),
        ...(first.decidedAt !== undefined ? { decidedAt: first.decidedAt } : {}),
      },
    };
  }

  /**
   * Stores the waits of a call that parked and reports each (`wait.created`): its approval,
   * or one elicitation wait per input request of its server that a person answers.
   */
  async park(outcome: ToolCallOutcome): Promise<readonly Wait[]> {
    const parked = outcome.parked!;
    const { sessionId, runId, principal } = this.#ctx;
    const { into, createdAt, expiresAt } = this.#newWaits('call');
    const base = {
      sessionId,
      runId,
      callId: outcome.callId,
      toolName: outcome.toolName,
      ...(parked.server !== undefined ? { server: parked.server } : {}),
      arguments: parked.arguments,
      createdAt,
      expiresAt,
      fingerprint: parked.fingerprint,
      status: 'pending' as const,
      ...(parked.approvedBy ? { approvedBy: parked.approvedBy } : {}),
      ...(principal !== undefined ? { principal } : {}),
    };
    const input = parked.input;
    const child = parked.child;
    // one elicitation wait per request of a server's input a person answers later
    const inputWaits = (inputs: NonNullable<typeof input>): Wait[] =>
      inputs.requests.map((r) => ({
        id: newId('wait'),
        kind: 'elicitation' as const,
        ...base,
        message: r.message,
        ...(r.requestedSchema !== undefined ? { requestedSchema: r.requestedSchema } : {}),
        ...(r.url !== undefined ? { url: r.url } : {}),
        ...(inputs.requestState !== undefined ? { requestState: inputs.requestState } : {}),
        inputKey: r.key,
        inputResponses: inputs.answered,
      }));
    const waits: Wait[] = parked.task
      ? [
          // the call's held wait (same id) now with the task's latest state, and the
          // questions of its input a person answers
          this.#taskWait(
            outcome.callId,
            outcome.toolName,
            parked.fingerprint,
            parked.task,
            parked.approvedBy,
          ),
          ...(input ? inputWaits(input) : []),
        ]
      : child
        ? child.waits.map((cw) => ({
            ...base,
            // the link to the same wait of the delegated run keeps its id across re-parks
            id: this.#linkId(outcome.callId, child.sessionId, cw.id) ?? newId('wait'),
            kind: cw.kind,
            // what the person is asked is the delegated run's: its tool, arguments and form
            ...(cw.toolName !== undefined ? { toolName: cw.toolName } : {}),
            ...(cw.server !== undefined ? { server: cw.server } : {}),
            ...(cw.arguments !== undefined ? { arguments: cw.arguments } : {}),
            ...(cw.message !== undefined ? { message: cw.message } : {}),
            ...(cw.requestedSchema !== undefined ? { requestedSchema: cw.requestedSchema } : {}),
            ...(cw.url !== undefined ? { url: cw.url } : {}),
            ...(cw.expiresAt !== undefined ? { expiresAt: cw.expiresAt } : {}),
            // a delegated run's task: when it is due its next poll (a worker resumes the root)
            ...(cw.task !== undefined ? { task: cw.task } : {}),
            child: { sessionId: child.sessionId, waitId: cw.id },
          }))
        : input
          ? inputWaits(input)
          : [
              {
                id: newId('wait'),
                kind: 'approval',
                ...base,
                ...(parked.reason !== undefined ? { message: parked.reason } : {}),
              },
            ];
    // the call's waits this run found but did not use (it parked again before reaching them)
    // go back: their answers still hold for its next resume
    for (const unused of this.#byCall.get(outcome.callId) ?? [])
      if (!this.#taken.has(unused.id)) await into.put(unused, this.#ctx.writeOptions());
    // the call's task links that this park does not write again: the delegated run no longer
    // waits on those tasks
    const stale = (this.#taskLinks.get(outcome.callId) ?? []).filter(
      (link) => !waits.some((w) => w.id === link.id),
    );
    if (stale.length > 0)
      await into.remove(
        sessionId,
        stale.map((w) => w.id),
        this.#ctx.writeOptions(),
      );
    this.#taskLinks.set(
      outcome.callId,
      waits.filter((w) => w.kind === 'task' && w.child),
    );
    for (const wait of waits) {
      await into.put(wait, this.#ctx.writeOptions());
      if (wait.kind === 'task' && !wait.child) this.#tasks.set(outcome.callId, wait);
      const shown = publicWait(wait);
      this.parked.push(shown);
      // a task wait parked again as an earlier run announced it is no news (every poll would
      // repeat it); `session.parked` still lists it
      if (!this.#announced(wait))
        this.#ctx.emit({
          type: 'wait.created',
          timestamp: isoNow(),
          sessionId,
          runId,
          wait: shown,
        });
    }
    return waits;
  }

  /**
   * Parks the run on one `auth` wait per sign-in its catalog found missing (SPEC 15.4), before
   * its first model request: each names the server, the issuer when known and the run's
   * principal, never a URL (a fresh one comes from `agent.mcp.authenticate(server,
   * { principal })`). `submitOAuthCallback(server, url, { principal })` decides it.
   */
  async parkSignIns(needs: readonly SignInNeed[]): Promise<readonly Wait[]> {
    const { sessionId, runId, principal } = this.#ctx;
    const { into, createdAt, expiresAt } = this.#newWaits('run');
    for (const need of needs) {
      const wait: Wait = {
        id: newId('wait'),
        sessionId,
        runId,
        kind: 'auth',
        server: need.server,
        ...(need.issuer !== undefined ? { issuer: need.issuer } : {}),
        ...(principal !== undefined ? { principal } : {}),
        message: `Server '${need.server}' needs this principal to sign in: get a sign-in URL with agent.mcp.authenticate('${need.server}', { principal }), then submitOAuthCallback('${need.server}', callbackUrl, { principal }) and resume the session.`,
        createdAt,
        expiresAt,
        fingerprint: signInFingerprint(need, principal),
        status: 'pending',
      };
      await into.put(wait, this.#ctx.writeOptions());
      this.parked.push(wait);
      this.#ctx.emit({ type: 'wait.created', timestamp: isoNow(), sessionId, runId, wait });
    }
    return [...this.parked];
  }

  /**
   * Takes up the `auth` waits the resumed run found (SPEC 15.4): a decided one (signed in) is
   * reported applied; one that expired undecided fails the run with `MCP_AUTH_REQUIRED`
   * (SPEC 15.1: "auth waits fail the call"; before its first model request the run has no
   * call, so the run fails).
   *
   * @throws McpError `MCP_AUTH_REQUIRED` (`details.reason: 'login-timeout'`) for an expired one.
   */
  takeUpSignIns(): void {
    const now = Date.now();
    for (const wait of this.found) {
      if (wait.kind !== 'auth' || wait.callId !== undefined || this.#taken.has(wait.id)) continue;
      this.#taken.add(wait.id);
      const expired = wait.status === 'pending' && isExpired(wait, now);
      const { sessionId, runId } = this.#ctx;
      this.#ctx.emit({
        type: 'wait.decided',
        timestamp: isoNow(),
        sessionId,
        runId,
        waitId: wait.id,
        kind: wait.kind,
        applied: true,
        expired,
        ...decisionOf(wait),
      });
      const server = wait.server ?? '';
      if (expired)
        throw new McpError(
          'MCP_AUTH_REQUIRED',
          `The sign-in to server '${server}' this run waited for was not made before its wait expired (waits.ttlMs): sign the principal in with agent.mcp.authenticate('${server}', { principal }) and run again.`,
          { server, details: { server, reason: 'login-timeout', waitId: wait.id } },
        );
    }
  }

  /** Forgets the waits this run took up: their calls have results (or fresh waits) by now. */
  settle(): void {
    for (const [callId, waits] of this.#byCall) {
      const left = waits.filter((w) => !this.#taken.has(w.id));
      if (left.length === 0) this.#byCall.delete(callId);
      else this.#byCall.set(callId, left);
    }
    this.#taken.clear();
  }

  /** The id of the link this run found from `callId` to the delegated run's wait `waitId`. */
  #linkId(callId: string, sessionId: string, waitId: string): string | undefined {
    return this.#byCall
      .get(callId)
      ?.find((w) => w.child?.sessionId === sessionId && w.child.waitId === waitId)?.id;
  }

  /**
   * True for a `task` wait this run found parked by an earlier run after a poll (so reported
   * then: a wait only held before its first poll, by a run that died, has no `polledAt` and
   * was never reported) that parks again with the same task status and status message.
   */
  #announced(wait: Wait): boolean {
    if (wait.kind !== 'task' || !wait.task) return false;
    const found = this.found.find((w) => w.id === wait.id && w.kind === 'task');
    return (
      found?.task?.polledAt !== undefined &&
      found.task.status === wait.task.status &&
      found.task.statusMessage === wait.task.statusMessage
    );
  }

  #eventBase(wait: Wait, callId: string) {
    const { sessionId, runId } = this.#ctx;
    return { timestamp: isoNow(), sessionId, runId, waitId: wait.id, callId, kind: wait.kind };
  }
}

function decisionOf(wait: Wait): { decision?: NonNullable<Wait['decision']> } {
  return wait.decision ? { decision: shownDecision(wait.decision) } : {};
}

/** What an `auth` wait is bound to: the server, the issuer and the principal to sign in. */
function signInFingerprint(need: SignInNeed, principal: string | undefined): string {
  const bound = { kind: 'auth', server: need.server, issuer: need.issuer ?? null, principal };
  return createHash('sha256')
    .update(JSON.stringify({ ...bound, principal: principal ?? null }))
    .digest('hex');
}
