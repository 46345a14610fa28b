import { MusterError } from '../errors/index.js';
import type { DecideOptions, Wait, WaitDecision } from './session-waits.js';

// Rules every store's waits share: which decision fits which wait, and the errors of a
// decision that cannot be taken. A store applies them inside its own transaction.

/** `WAIT_NOT_FOUND` for a wait that does not exist, was decided already, or expired. */
export function waitNotFoundError(
  sessionId: string,
  waitId: string,
  why: 'unknown' | 'decided' | 'expired',
): MusterError<'WAIT_NOT_FOUND'> {
  const text =
    why === 'decided'
      ? `Wait '${waitId}' of session '${sessionId}' was already decided: a decision is taken once. Resume the session to continue it.`
      : why === 'expired'
        ? `Wait '${waitId}' of session '${sessionId}' expired: it can no longer be decided. Resume the session; the expiry decides it (waits.onExpiry).`
        : `Session '${sessionId}' has no wait '${waitId}': list its waits with agent.sessions.waits({ sessionId }).`;
  return new MusterError('WAIT_NOT_FOUND', text, {
    details: { sessionId, waitId, reason: `wait-${why}` as const },
  });
}

/** `WAIT_STALE`: the wait the host showed is not the one stored (its call or policy changed). */
export function waitStaleError(sessionId: string, waitId: string): MusterError<'WAIT_STALE'> {
  return new MusterError(
    'WAIT_STALE',
    `Wait '${waitId}' of session '${sessionId}' changed since it was shown (its call, tool or policy is not the one approved): list the waits again and decide the current one.`,
    { details: { sessionId, waitId } },
  );
}

const APPROVAL_DECISIONS = new Set(['allow', 'deny', 'redirect']);
const ELICITATION_ACTIONS = new Set(['accept', 'decline', 'cancel']);

/**
 * Checks that `decision` may decide `wait` at `options.now`: the wait exists and is pending,
 * has not expired, shows the fingerprint the host saw, and the decision has the shape of the
 * wait's kind (`INVALID_CONFIGURATION` otherwise, naming what is expected): an approval's, a
 * form's, for an `auth` wait `{ decision: 'allow' }` (its principal signed in; SPEC 15.4),
 * for a `task` wait `{ decision: 'cancel' }` (SPEC 15.3). Returns the
 * decision as it is stored (plain data, only the known fields).
 */
export function checkDecision(
  sessionId: string,
  waitId: string,
  wait: Wait | undefined,
  decision: WaitDecision,
  options: DecideOptions = {},
): WaitDecision {
  if (!wait) throw waitNotFoundError(sessionId, waitId, 'unknown');
  if (wait.status !== 'pending') throw waitNotFoundError(sessionId, waitId, 'decided');
  const now = options.now ?? Date.now();
  if (wait.expiresAt !== undefined && Date.parse(wait.expiresAt) <= now)
    throw waitNotFoundError(sessionId, waitId, 'expired');
  if (options.fingerprint !== undefined && options.fingerprint !== wait.fingerprint)
    throw waitStaleError(sessionId, waitId);
  return decisionShape(wait, decision);
}

function decisionShape(wait: Wait, decision: WaitDecision): WaitDecision {
  const d = decision as unknown as Record<string, unknown> | null;
  const reason = optionalString(d, 'reason', wait);
  if (wait.kind === 'approval') {
    if (!d || typeof d.decision !== 'string' || !APPROVAL_DECISIONS.has(d.decision))
      throw shapeError(wait, "{ decision: 'allow' | 'deny' | 'redirect', reason?, message? }");
    const message = optionalString(d, 'message', wait);
    if (d.decision === 'redirect' && !message)
      throw shapeError(wait, "{ decision: 'redirect', message: 'the new instruction' }");
    onlyKeys(d, ['decision', 'reason', 'message'], wait);
    return {
      decision: d.decision as 'allow' | 'deny' | 'redirect',
      ...(reason !== undefined ? { reason } : {}),
      ...(message !== undefined ? { message } : {}),
    };
  }
  if (wait.kind === 'elicitation') {
    if (!d || typeof d.action !== 'string' || !ELICITATION_ACTIONS.has(d.action))
      throw shapeError(wait, "{ action: 'accept' | 'decline' | 'cancel', content? }");
    onlyKeys(d, ['action', 'content', 'reason'], wait);
    const content = d.content;
    if (
      content !== undefined &&
      (typeof content !== 'object' || content === null || Array.isArray(content))
    )
      throw shapeError(wait, '{ action, content: { ...fields of the form } }');
    return {
      action: d.action as 'accept' | 'decline' | 'cancel',
      ...(content !== undefined
        ? { content: JSON.parse(JSON.stringify(content)) as Record<string, unknown> }
        : {}),
      ...(reason !== undefined ? { reason } : {}),
    };
  }
  if (wait.kind === 'auth') {
    // the principal signed in (submitOAuthCallback decides it so): nothing else is an answer
    if (!d || d.decision !== 'allow')
      throw shapeError(wait, "{ decision: 'allow', reason? } once the principal has signed in");
    onlyKeys(d, ['decision', 'reason'], wait);
    return { decision: 'allow', ...(reason !== undefined ? { reason } : {}) };
  }
  if (wait.kind === 'task') {
    // a task needs no decision (a resume polls it): the one answer is to cancel it
    if (!d || d.decision !== 'cancel')
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Wait '${wait.id}' is a task wait: it needs no decision (resume the session and the task is polled again). The one decision it takes is { decision: 'cancel', reason? }: the next resume then sends tasks/cancel instead of polling.`,
        { details: { waitId: wait.id, kind: wait.kind } },
      );
    onlyKeys(d, ['decision', 'reason'], wait);
    return { decision: 'cancel', ...(reason !== undefined ? { reason } : {}) };
  }
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `Wait '${wait.id}' is a ${wait.kind} wait: it is decided by resuming the session, not by agent.decide().`,
    { details: { waitId: wait.id, kind: wait.kind } },
  );
}

function optionalString(
  d: Record<string, unknown> | null,
  key: string,
  wait: Wait,
): string | undefined {
  const value = d?.[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > 10_000)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The decision's ${key} must be a string of at most 10000 characters (wait '${wait.id}').`,
    );
  return value;
}

function onlyKeys(d: Record<string, unknown>, keys: readonly string[], wait: Wait): void {
  for (const key of Object.keys(d))
    if (!keys.includes(key))
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `The decision of ${wait.kind} wait '${wait.id}' has an unknown key '${key}': the known keys are ${keys.join(', ')}.`,
      );
}

function shapeError(wait: Wait, expected: string): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `Wait '${wait.id}' is an ${wait.kind} wait: decide it with ${expected}.`,
    { details: { waitId: wait.id, kind: wait.kind } },
  );
}
