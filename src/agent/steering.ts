import { UNCHANGED } from './step-commits.js';
import { MusterError, SessionError } from '../errors/index.js';
import type { ModelMessage } from '../model/index.js';
import type { SessionStore } from '../session/index.js';
import { assertValid, deepFreeze, isoNow, isPrincipalId, optional, shape } from '../util/index.js';
import { assertSessionPrincipal } from './principal-check.js';
import type { AgentScope } from './agent-scope.js';
import type { AgentEvent } from './events.js';
import type { RunEventLog } from './run-event-log.js';
import { guardStore } from './store-operation.js';

/** What `agent.steer()` takes besides the session and the text. */
const steerOptions = shape({ principal: optional(isPrincipalId) });

/** The longest steering message taken, in characters (a user message, not a document). */
const MAX_STEERING_CHARS = 100_000;

/**
 * Queues `text` as a user message for the session's run (SPEC 15.2), from any process with the
 * same store: the running run takes it at its next step boundary, a parked one when resumed,
 * an idle one at the start of its next run. `options.principal` is the steering user's: another
 * than the session's is `PRINCIPAL_MISMATCH` (SPEC 15.4). Nothing is written when it is refused.
 */
export async function steerSession(
  runtime: AgentScope,
  sessionId: unknown,
  text: unknown,
  options?: unknown,
): Promise<void> {
  if (typeof sessionId !== 'string' || sessionId === '')
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'steer() needs the id of a session (a non-empty string) as its first argument.',
    );
  if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_STEERING_CHARS)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The steering message for session '${sessionId}' must be non-empty text of at most ${MAX_STEERING_CHARS} characters.`,
      { details: { sessionId } },
    );
  assertValid(options ?? {}, steerOptions, 'steer options');
  const principal = (options as { readonly principal?: string } | undefined)?.principal;
  const store = runtime.store;
  const missing = (['steer', 'takeSteering'] as const).filter(
    (m) => typeof store[m] !== 'function',
  );
  if (missing.length > 0)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `This agent's session store has no ${missing.join(' or ')} method: it cannot steer runs. Use the memory, SQLite or PostgreSQL store.`,
      { details: { sessionId, missing } },
    );
  await guardStore(sessionId, 'queue the steering message', async () => {
    // refused here, not left to the store: a session another principal creates between this
    // read and the steer would otherwise take the message
    const session = await store.get(sessionId);
    if (!session)
      throw new SessionError(
        'SESSION_NOT_FOUND',
        `Session '${sessionId}' does not exist: steer a session that has run (run({ sessionId }) starts one).`,
        { sessionId },
      );
    assertSessionPrincipal(sessionId, session.principal, principal, 'steer');
    await store.steer!(sessionId, text);
  });
}

/** What a run's step boundary needs to take steering. */
export interface SteeringTarget {
  readonly sessionId: string;
  readonly runId: string;
  /** The run's guarded, leased store. */
  readonly store: SessionStore;
  readonly emit: (event: AgentEvent) => void;
  /** Adds an event the store logged (numbered `seq`) to the run. */
  readonly emitLogged: (event: AgentEvent, seq: number) => void;
  readonly log: () => RunEventLog | undefined;
}

/**
 * True when steering may wait for the run's session: its store takes steering, and its last
 * commit did not report that none waits. Checked at each step boundary, without awaiting.
 */
export function steeringDue(target: SteeringTarget): boolean {
  const log = target.log();
  if (log && !log.steeringMaybe) return false;
  return target.store.takeSteering !== undefined;
}

/**
 * Takes the steering waiting for the run's session, at a step boundary (before a model
 * request): the store appends it to the transcript and logs a `steering.delivered` for each
 * message, in one fenced transaction, so a crash cannot leave a message taken and its event
 * unlogged. The events the run still holds are committed first, so the steering events'
 * numbers follow theirs. Ask only when {@link steeringDue}.
 */
export async function takeSteering(
  target: SteeringTarget,
  transcript: ModelMessage[],
): Promise<void> {
  const take = target.store.takeSteering;
  const log = target.log();
  if (!take) return;
  if (log) {
    await log.idle();
    if (log.holding) await target.store.update(target.sessionId, { ...UNCHANGED });
  }
  const timestamp = isoNow();
  const event = (text: string): AgentEvent => ({
    type: 'steering.delivered',
    timestamp,
    sessionId: target.sessionId,
    runId: target.runId,
    text,
  });
  let first: number | undefined;
  const texts = await take(target.sessionId, undefined, {
    event,
    logged: (seq) => (first = seq),
  });
  if (log) log.steeringMaybe = false;
  for (const [i, text] of texts.entries()) {
    transcript.push(deepFreeze({ role: 'user', content: [{ type: 'text', text }] }));
    // a store that logged nothing (no log, or a custom one): the run logs it with its next commit
    if (first === undefined) target.emit(event(text));
    else target.emitLogged(event(text), first + i);
  }
}
