import { UNCHANGED } from './step-commits.js';
import type { ModelMessage, UserContentPart, UserMessage } from '../model/index.js';
import type { SessionBudget, SessionState, SessionStore } from '../session/index.js';
import { MusterError, SessionError } from '../errors/index.js';
import type { RunRequest } from './agent-options.js';
import { copyData, deepFreeze, isoNow, jsonText } from '../util/index.js';
import { fromStored, withoutMedia } from './stored-form.js';
import { unansweredCallResults } from './transcript-repair.js';
import type { RepairedCall } from './transcript-repair.js';
import { sessionWaits } from './open-waits.js';
import { assertSessionPrincipal } from './principal-check.js';
import { replayMark, wasReplayed } from './call-replay.js';
import type { ToolCallRequest } from '../tools/index.js';

/** A session opened for one run: the transcript the model sees, and how the run ends in the store. */
export interface SessionRun {
  /** True when the session existed before this run. */
  readonly continued: boolean;
  /** The conversation so far, including the new user message; the loop appends to it. */
  readonly transcript: ModelMessage[];
  /** Model turns already taken by the run being continued (0 for a new run). */
  readonly iterationsDone: number;
  /**
   * The final answer, when a resumed run had committed it but died before completing: the
   * run completes without another model turn.
   */
  readonly finalText?: string;
  /** When the session was opened, ISO 8601. */
  readonly startedAt: string;
  /**
   * Calls a previous run left unanswered, given an error result in this run's transcript
   * (never replayed); the run reports a `tool.completed` event for each.
   */
  readonly repaired: readonly RepairedCall[];
  /**
   * Calls that parked (SPEC 15.1), to run again with their decisions before the next turn;
   * with `inFlight`, in the order the model asked for them.
   */
  readonly pendingCalls?: readonly ToolCallRequest[];
  /**
   * The calls among `pendingCalls` that were in flight when the previous run died and may be
   * sent again (`mcp.replay: 'idempotent'`, never replayed before): the run sends those its
   * catalog marks replayable, and repairs the others as `TOOL_OUTCOME_UNKNOWN`.
   */
  readonly inFlight?: ReadonlySet<string>;
  /**
   * The calls among `pendingCalls` that parked on a wait while they were being sent again
   * (their start recorded a replay, SPEC 15.5): still replays, so one the pipeline does not
   * send now (denied, its approval expired) is `TOOL_OUTCOME_UNKNOWN`, not "not run".
   */
  readonly replayed?: ReadonlySet<string>;
  /**
   * The entries of the session's call starts (`SessionState.startedCalls`) that `pendingCalls`
   * already hold: a call's id, or its replay mark (`replay:<callId>`). A call run again (a task
   * polled on each resume, an approval decided) does not record its start twice: the list
   * would grow by one entry per resume, and only membership counts.
   */
  readonly recordedStarts?: ReadonlySet<string>;
  /** Records the final answer, and its typed value when the run asked for `output`. */
  complete(content: string, output?: unknown): Promise<unknown>;
  /** Records the failure (code and message only). */
  fail(error: MusterError): Promise<unknown>;
}

/**
 * The session as the run found it, just before the commit that opens the run: what the run's
 * first events say, and where its event log goes on from. Whatever the run reports here (its
 * `session.started`, the repaired calls' `tool.completed`) rides that commit.
 */
export interface SessionOpening {
  readonly continued: boolean;
  /** When the session was opened, ISO 8601. */
  readonly startedAt: string;
  /** The `seq` of the session's last logged event (SPEC 15.2). */
  readonly eventSeq: number;
  /** Calls a previous run left unanswered, answered by this commit. */
  readonly repaired: readonly RepairedCall[];
  /** For a resume, the budget the run had spent when it stopped (SPEC 15.4). */
  readonly budget?: SessionBudget | undefined;
}

/** Called with the session just before the commit that opens the run (see {@link SessionOpening}). */
export type OnSessionOpening = (opening: SessionOpening) => void;

/**
 * Loads or creates the session, repairs calls a previous run left unanswered (they become
 * `TOOL_OUTCOME_UNKNOWN` results, never replays), and commits the new user message. A new
 * session is stored with the run's principal; an existing one for another principal is
 * refused (`PRINCIPAL_MISMATCH`) before anything is written. With `createOnly` (a worker's
 * start job) a session that exists is refused (`SESSION_ALREADY_RUNNING`) before anything is
 * written: the run was to start it, and another run did.
 * `store` is expected to type its failures and name the run's lease (see `guardedStore`).
 */
export async function openSessionRun(
  store: SessionStore,
  sessionId: string,
  request: RunRequest,
  onOpening: OnSessionOpening = () => {},
  createOnly = false,
): Promise<SessionRun> {
  const existing = await store.get(sessionId);
  if (existing && createOnly)
    throw new SessionError(
      'SESSION_ALREADY_RUNNING',
      `Session '${sessionId}' was started by another run of the same request (a start job delivered twice): this run wrote nothing. Resume the session to continue it.`,
      { sessionId },
    );
  const startedAt = isoNow();
  // before anything else: another principal learns nothing of the session (not even its waits)
  if (existing)
    assertSessionPrincipal(sessionId, existing.principal, request.principal, 'continue');
  if (existing?.status === 'parked') {
    const waits = (await sessionWaits(store, sessionId)).map((w) => `${w.id} (${w.kind})`);
    throw new SessionError(
      'SESSION_ALREADY_RUNNING',
      `Session '${sessionId}' is parked on ${waits.length === 0 ? 'its waits' : waits.join(', ')}: decide them with agent.decide() and continue it with agent.resume('${sessionId}').`,
      { sessionId },
    );
  }
  if (existing) {
    // a new run: the previous run's budget goes (a run with one of its own writes it instead)
    await store.update(sessionId, {
      ...UNCHANGED,
      status: 'running',
      iteration: 0,
      error: null,
      budget: existing.budget === undefined ? undefined : null,
    });
  } else {
    await store.create({
      id: sessionId,
      status: 'running',
      messages: [],
      iteration: 0,
      createdAt: startedAt,
      updatedAt: startedAt,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      archiveRefs: [],
      startedCalls: [],
      ...(request.principal !== undefined ? { principal: request.principal } : {}),
    });
  }
  const user = userMessage(request);
  const repairs = repairsOf(existing);
  const repaired = repairs.map((r) => r.message);
  const continued = existing !== undefined;
  onOpening({ continued, startedAt, eventSeq: existing?.eventSeq ?? 0, repaired: repairs });
  await store.update(sessionId, {
    ...UNCHANGED,
    appendMessages: [...repaired, withoutMedia(user)],
  });
  return {
    continued,
    transcript: [...fromStored(existing?.messages ?? []), ...repaired, user],
    repaired: repairs,
    iterationsDone: 0,
    startedAt,
    ...ending(store, sessionId),
  };
}

/**
 * Opens a session whose run died (status `running` or `failed`) to continue that run: calls
 * that were in flight become `TOOL_OUTCOME_UNKNOWN` results, and the loop goes on from the
 * committed transcript. With `replay` (`mcp.replay: 'idempotent'`) the calls of the last turn
 * that were in flight and never replayed are left to the run instead (`inFlight`), which
 * decides from its catalog whether each is sent again. `principal` is the resume's: another
 * than the session's is refused (`PRINCIPAL_MISMATCH`) before anything is written.
 */
export async function resumeSessionRun(
  store: SessionStore,
  sessionId: string,
  waitingCalls: ReadonlySet<string> = new Set(),
  principal?: string,
  onOpening: OnSessionOpening = () => {},
  replay = false,
): Promise<SessionRun> {
  const existing = await store.get(sessionId);
  if (!existing) {
    throw new SessionError(
      'SESSION_NOT_FOUND',
      `Session '${sessionId}' does not exist: start it with run({ sessionId }).`,
      { sessionId },
    );
  }
  assertSessionPrincipal(sessionId, existing.principal, principal, 'resume');
  if (
    existing.status !== 'running' &&
    existing.status !== 'failed' &&
    existing.status !== 'parked'
  ) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Session '${sessionId}' is ${existing.status}: it has no run to resume; continue it with run({ sessionId, input }).`,
    );
  }
  const startedAt = isoNow();
  const inFlight = replay ? replayCandidates(existing, waitingCalls) : new Set<string>();
  // a replay that parked (an approval asked again) is still a replay when it is decided
  const replayed = new Set(
    [...waitingCalls].filter((callId) => wasReplayed(existing.startedCalls, callId)),
  );
  const repairs = repairsOf(existing, new Set([...waitingCalls, ...inFlight]));
  const repaired = repairs.map((r) => r.message);
  const pendingCalls = lastTurnCalls(existing, new Set([...waitingCalls, ...inFlight]));
  const recordedStarts = startsRecorded(existing.startedCalls, pendingCalls);
  onOpening({
    continued: true,
    startedAt,
    eventSeq: existing.eventSeq ?? 0,
    repaired: repairs,
    budget: existing.budget,
  });
  await store.update(sessionId, {
    ...UNCHANGED,
    status: 'running',
    error: null,
    appendMessages: repaired.length > 0 ? repaired : undefined,
  });
  const transcript = [...fromStored(existing.messages), ...repaired];
  const last = transcript.at(-1);
  const finalText =
    last?.role === 'assistant' && !last.content.some((p) => p.type === 'tool-call')
      ? last.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')
      : undefined;
  return {
    continued: true,
    transcript,
    repaired: repairs,
    iterationsDone: existing.iteration,
    ...(finalText !== undefined ? { finalText } : {}),
    ...(pendingCalls.length > 0 ? { pendingCalls } : {}),
    ...(inFlight.size > 0 ? { inFlight } : {}),
    ...(replayed.size > 0 ? { replayed } : {}),
    ...(recordedStarts.size > 0 ? { recordedStarts } : {}),
    startedAt,
    ...ending(store, sessionId),
  };
}

function repairsOf(existing: SessionState | undefined, waiting: ReadonlySet<string> = new Set()) {
  return unansweredCallResults(existing?.messages ?? [], existing?.startedCalls, waiting);
}

/**
 * The calls of the last turn that were in flight when the run died (their start committed, no
 * result, no wait) and were never sent again: those a resume may replay (SPEC 15.5).
 */
function replayCandidates(existing: SessionState, waiting: ReadonlySet<string>): Set<string> {
  const started = existing.startedCalls;
  const answered = new Set(existing.messages.flatMap((m) => (m.role === 'tool' ? [m.callId] : [])));
  const last = existing.messages.findLast((m) => m.role === 'assistant');
  const out = new Set<string>();
  if (last?.role !== 'assistant' || !started) return out;
  const inFlight = new Set(started);
  for (const part of last.content)
    if (
      part.type === 'tool-call' &&
      inFlight.has(part.callId) &&
      !answered.has(part.callId) &&
      !waiting.has(part.callId) &&
      !wasReplayed(started, part.callId)
    )
      out.add(part.callId);
  return out;
}

/** The entries of `started` that record the start (or the replay) of one of `calls`. */
function startsRecorded(
  started: readonly string[] | undefined,
  calls: readonly ToolCallRequest[],
): Set<string> {
  const out = new Set<string>();
  if (!started || calls.length === 0) return out;
  const entries = new Set(calls.flatMap((c) => [c.callId, replayMark(c.callId)]));
  for (const entry of started) if (entries.has(entry)) out.add(entry);
  return out;
}

/**
 * The unanswered calls of the last turn among `calls` (those that parked on a wait, and those
 * a resume may replay), in the order the model asked for them: they run again on resume.
 */
function lastTurnCalls(existing: SessionState, calls: ReadonlySet<string>): ToolCallRequest[] {
  if (calls.size === 0) return [];
  const answered = new Set(existing.messages.flatMap((m) => (m.role === 'tool' ? [m.callId] : [])));
  const last = existing.messages.findLast((m) => m.role === 'assistant');
  if (last?.role !== 'assistant') return [];
  return last.content.flatMap((part) =>
    part.type === 'tool-call' && calls.has(part.callId) && !answered.has(part.callId)
      ? [
          {
            callId: part.callId,
            name: part.name,
            argumentsText:
              typeof part.arguments === 'string'
                ? part.arguments
                : (jsonText(part.arguments ?? {}) ?? '{}'),
            arguments: part.arguments,
            iteration: existing.iteration,
          },
        ]
      : [],
  );
}

function ending(store: SessionStore, sessionId: string): Pick<SessionRun, 'complete' | 'fail'> {
  return {
    complete: (content, output) =>
      store.update(sessionId, {
        ...UNCHANGED,
        status: 'completed',
        finalContent: content,
        finalOutput: output === undefined ? null : { value: output },
      }),
    fail: (error) =>
      store.update(sessionId, {
        ...UNCHANGED,
        status: 'failed',
        error: { code: error.code, message: error.message },
      }),
  };
}

/** The run's user message: a deep-frozen copy, so the host changing its input later changes nothing. */
function userMessage(request: RunRequest): UserMessage {
  const content: UserContentPart[] = request.inputContent
    ? copyData([...request.inputContent])
    : [{ type: 'text', text: request.input ?? '' }];
  return deepFreeze({ role: 'user', content });
}
