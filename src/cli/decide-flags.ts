import { MusterError } from '../errors/index.js';
import type { WaitDecision } from '../session/index.js';

/** The flags of `muster decide` as commander parses them. */
export interface DecideFlags {
  readonly allow?: boolean;
  readonly deny?: boolean;
  readonly redirect?: string;
  readonly answer?: string;
  readonly reason?: string;
  readonly fingerprint?: string;
}

/** The decision flag that was given: it says which kind of wait it can decide. */
export type DecisionFlag = '--allow' | '--deny' | '--redirect' | '--answer';

/** What the flags decide, and the flag that said it. */
export interface FlagDecision {
  readonly flag: DecisionFlag;
  readonly decision: WaitDecision;
  readonly fingerprint?: string;
}

const ACTIONS: ReadonlySet<string> = new Set(['accept', 'decline', 'cancel']);

/**
 * Reads the decision of `muster decide` from its flags, before anything is opened: exactly
 * one of `--allow`, `--deny`, `--redirect <text>` (approvals) and `--answer <json>` (forms),
 * with `--reason` and `--fingerprint` (64 hex digits) optional. `--answer` takes either a
 * whole answer, an object whose only keys are `action` (`accept`, `decline` or `cancel`) and
 * `content`, or just the form's content object, which means `accept`. Anything else is
 * `INVALID_CONFIGURATION` (exit 2) naming the flag (`details.flag`).
 */
export function decisionFromFlags(flags: DecideFlags): FlagDecision {
  const given: DecisionFlag[] = [];
  if (flags.allow === true) given.push('--allow');
  if (flags.deny === true) given.push('--deny');
  if (flags.redirect !== undefined) given.push('--redirect');
  if (flags.answer !== undefined) given.push('--answer');
  if (given.length !== 1) {
    throw usage(
      given.length === 0
        ? 'muster decide needs a decision: --allow, --deny or --redirect <text> for an approval, --answer <json> for a form.'
        : `muster decide takes one decision, not ${given.join(' and ')}: give exactly one of --allow, --deny, --redirect <text>, --answer <json>.`,
      given.length === 0 ? '--allow|--deny|--redirect|--answer' : given.join(' '),
    );
  }
  const flag = given[0]!;
  const fingerprint = flags.fingerprint;
  if (fingerprint !== undefined && !/^[0-9a-f]{64}$/i.test(fingerprint))
    throw usage(
      `--fingerprint takes the wait's sha-256 fingerprint (64 hex digits, as muster --json sessions waits shows it), not '${fingerprint}'.`,
      '--fingerprint',
    );
  const reason = flags.reason === undefined ? {} : { reason: flags.reason };
  const extra = fingerprint === undefined ? {} : { fingerprint: fingerprint.toLowerCase() };
  switch (flag) {
    case '--allow':
      return { flag, decision: { decision: 'allow', ...reason }, ...extra };
    case '--deny':
      return { flag, decision: { decision: 'deny', ...reason }, ...extra };
    case '--redirect': {
      const message = flags.redirect!.trim();
      if (message === '')
        throw usage(
          '--redirect takes the message the model gets instead of the call; it is empty.',
          flag,
        );
      return { flag, decision: { decision: 'redirect', message, ...reason }, ...extra };
    }
    case '--answer':
      return { flag, decision: { ...answerOf(flags.answer!), ...reason }, ...extra };
  }
}

/** The elicitation answer of `--answer <json>`. */
function answerOf(text: string): WaitDecision {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw usage(
      `--answer takes JSON (the form's content object, or { "action": "accept"|"decline"|"cancel", "content": {…} }): ${err instanceof Error ? err.message : String(err)}.`,
      '--answer',
      err,
    );
  }
  if (!isObject(value))
    throw usage(
      `--answer takes a JSON object (the form's content, or { "action", "content" }), not ${JSON.stringify(value)}.`,
      '--answer',
    );
  const keys = Object.keys(value);
  const whole = 'action' in value && keys.every((k) => k === 'action' || k === 'content');
  if (!whole) return { action: 'accept', content: value };
  if (typeof value.action !== 'string' || !ACTIONS.has(value.action))
    throw usage(
      `--answer's action must be "accept", "decline" or "cancel", not ${JSON.stringify(value.action)}.`,
      '--answer',
    );
  if (value.content !== undefined && !isObject(value.content))
    throw usage(`--answer's content must be a JSON object.`, '--answer');
  if (value.action !== 'accept' && value.content !== undefined)
    throw usage(`--answer: only "accept" carries content (got "${value.action}").`, '--answer');
  return {
    action: value.action as 'accept' | 'decline' | 'cancel',
    ...(value.content !== undefined ? { content: value.content } : {}),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function usage(message: string, flag: string, cause?: unknown): MusterError {
  return new MusterError('INVALID_CONFIGURATION', message, {
    details: { flag },
    ...(cause === undefined ? {} : { cause }),
  });
}
