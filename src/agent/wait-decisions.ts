import { MusterError, SessionError } from '../errors/index.js';
import { waitStaleError } from '../session/index.js';
import type { DecideOptions, Wait, WaitDecision, WaitPage, WaitQuery } from '../session/index.js';
import { formatIssues, validateJsonSchema } from '../tools/index.js';
import type { AgentScope } from './agent-scope.js';
import { guardedStore } from './store-guard.js';
import { guardStore } from './store-operation.js';
import { isExpired, liveWaits, MAX_WAIT_LINKS, publicWait, shownDecision } from './open-waits.js';
import {
  assertValid,
  dataDepth,
  isPrincipalId,
  isString,
  MAX_DATA_DEPTH,
  optional,
  shape,
} from '../util/index.js';
import type { Check } from '../util/index.js';
import { isoNow } from '../util/index.js';
import type { WaitDecidedEvent } from './events.js';
import { assertSessionPrincipal } from './principal-check.js';

/** What `agent.decide()` takes besides the decision: the store's options, and who decides. */
export type AgentDecideOptions = Pick<DecideOptions, 'fingerprint'> & {
  /** The principal the session acts for (SPEC 15.4); another is `PRINCIPAL_MISMATCH`. */
  readonly principal?: string;
};

const decideOptions = shape({
  fingerprint: optional(isString()),
  principal: optional(isPrincipalId),
} satisfies Record<keyof AgentDecideOptions, Check>);

/**
 * Decides a wait of a parked run from this process (SPEC 15.1): any process with the same
 * store may. An elicitation answer is checked against the form's `requestedSchema` first;
 * the store takes the decision atomically (of concurrent decisions exactly one wins) and the
 * policy observer hears of it. A decision for another principal than the one the wait's run
 * acts for is `PRINCIPAL_MISMATCH`. A task wait takes `{ decision: 'cancel' }` only while
 * no run polls its task (`SESSION_ALREADY_RUNNING` otherwise). Nothing is written when it is
 * refused.
 */
export async function decideWait(
  runtime: AgentScope,
  sessionId: string,
  waitId: string,
  decision: WaitDecision,
  options: AgentDecideOptions = {},
  links = 0,
): Promise<Wait> {
  const given = options ?? {};
  assertValid(given, decideOptions, 'decide options');
  // an answer is stored and sent on: no deeper than any data Muster keeps
  if (dataDepth(decision) > MAX_DATA_DEPTH)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The decision of wait '${waitId}' nests deeper than ${MAX_DATA_DEPTH} levels: answer with the fields its form asks for.`,
      { details: { sessionId, waitId } },
    );
  const waits = storeWaits(runtime);
  const stored = await waits.get(sessionId, waitId);
  // a wait carries its run's principal (none: the local user), as its session does
  if (stored)
    assertSessionPrincipal(sessionId, stored.principal, given.principal, 'decide a wait of');
  if (stored?.child) {
    // a link to a delegated run's wait: the decision is that wait's (the link is only read)
    if (given.fingerprint !== undefined && given.fingerprint !== stored.fingerprint)
      throw waitStaleError(sessionId, waitId);
    if (links >= MAX_WAIT_LINKS)
      throw new SessionError(
        'SESSION_STORE_FAILED',
        `Wait '${waitId}' links through more than ${MAX_WAIT_LINKS} delegated runs (the store's links form a cycle?): it cannot be decided; check the waits of session '${sessionId}'.`,
        { sessionId },
      );
    const linked = await decideWait(
      runtime,
      stored.child.sessionId,
      stored.child.waitId,
      decision,
      // the delegated run acts for the same principal: the link was checked
      stored.principal !== undefined ? { principal: stored.principal } : {},
      links + 1,
    );
    // the link, as it stands now: the linked wait's status and decision
    const [live] = await liveWaits(guardedStore(runtime.store), [stored]);
    return publicWait({ ...live!, status: linked.status });
  }
  if (stored?.kind === 'task' && stored.status === 'pending')
    await assertTaskParked(runtime, sessionId, waitId);
  if (decision !== null && typeof decision === 'object' && 'action' in decision) {
    const wait = stored;
    // a wait that cannot be decided any more is refused by the store, with its own reason
    const open = wait?.status === 'pending' && !isExpired(wait, Date.now());
    if (
      open &&
      wait.kind === 'elicitation' &&
      decision.action === 'accept' &&
      wait.requestedSchema
    ) {
      // a server's form: its patterns run under RE2
      const checked = await validateJsonSchema(wait.requestedSchema, decision.content ?? {}, 're2');
      if (!checked.success)
        throw new MusterError(
          'INVALID_CONFIGURATION',
          `The answer does not match the form of wait '${waitId}' (${formatIssues(checked.issues)}): answer with the fields its requestedSchema asks for.`,
          { details: { sessionId, waitId } },
        );
    }
  }
  const decided = publicWait(
    await waits.decide(sessionId, waitId, decision, {
      ...(given.fingerprint !== undefined ? { fingerprint: given.fingerprint } : {}),
      // logged in the decision's transaction, for watchers in any process (SPEC 15.2)
      event: (wait) => decidedEvent(wait),
    }),
  );
  if (
    decided.kind === 'approval' &&
    decided.decision &&
    'decision' in decided.decision &&
    decided.decision.decision !== 'cancel'
  ) {
    runtime.policy.notify(
      {
        kind: 'tool',
        capability: decided.toolName ?? '',
        ...(decided.toolName !== undefined ? { toolName: decided.toolName } : {}),
        ...(decided.server !== undefined ? { server: decided.server } : {}),
        sessionId,
        runId: decided.runId,
        ...(decided.principal !== undefined ? { principal: decided.principal } : {}),
        ...(decided.callId !== undefined ? { callId: decided.callId } : {}),
      },
      {
        decision: decided.decision.decision,
        stage: 'approval',
        reason: `wait ${waitId} decided${decided.decision.reason !== undefined ? `: ${decided.decision.reason}` : ''}`,
      },
      (err) => runtime.reportError(err),
    );
  }
  return decided;
}

/** The `wait.decided` a decision logs: whether it applies is known when the run resumes. */
export function decidedEvent(wait: Wait): WaitDecidedEvent {
  return {
    type: 'wait.decided',
    timestamp: wait.decidedAt ?? isoNow(),
    sessionId: wait.sessionId,
    runId: wait.runId,
    waitId: wait.id,
    ...(wait.callId !== undefined ? { callId: wait.callId } : {}),
    kind: wait.kind,
    ...(wait.decision !== undefined ? { decision: shownDecision(wait.decision) } : {}),
    expired: false,
  };
}

/**
 * One page of waits across sessions (an inbox); empty when the store keeps none. A link to
 * a delegated run's wait shows that wait's status and decision.
 */
export async function listWaits(runtime: AgentScope, query?: WaitQuery): Promise<WaitPage> {
  const store = guardedStore(runtime.store);
  if (!store.waits) return { waits: [] };
  // a link's stored status is not its own: filter by status once links are resolved
  const { status, ...rest } = query ?? {};
  const page = await store.waits.list(status === undefined ? query : rest);
  const live = page.waits.some((w) => w.child) ? await liveWaits(store, page.waits) : page.waits;
  const waits = (status ? live.filter((w) => w.status === status) : live).map(publicWait);
  return { ...page, waits };
}

/**
 * A task wait is decided (`cancel`) only while no run polls its task: a live run read its
 * waits when it started and would not see the decision before it parks again (a `put` then
 * keeps the decision for the next resume). Its session's live lease says a run holds it (a
 * store without leases: its status `running`).
 *
 * @throws SessionError `SESSION_ALREADY_RUNNING` while a run holds the session.
 */
async function assertTaskParked(
  runtime: AgentScope,
  sessionId: string,
  waitId: string,
): Promise<void> {
  const store = runtime.store;
  const leased = store.leased?.bind(store);
  const running = leased
    ? await guardStore(sessionId, 'read the session lease', () => leased(sessionId))
    : (await guardedStore(store).get(sessionId))?.status === 'running';
  if (running)
    throw new SessionError(
      'SESSION_ALREADY_RUNNING',
      `Session '${sessionId}' is running: its run polls the task of wait '${waitId}' now, in this or another process, and would not see a decision. Cancel that run (its abort sends tasks/cancel once), or decide the wait once the run has parked on it (mcp.tasks.parkAfterMs).`,
      { sessionId },
    );
}

function storeWaits(runtime: AgentScope) {
  const waits = guardedStore(runtime.store).waits;
  if (!waits)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'This agent’s session store keeps no waits (SessionStore.waits): there is nothing to decide. Use the memory, SQLite or PostgreSQL store to park runs.',
    );
  return waits;
}
