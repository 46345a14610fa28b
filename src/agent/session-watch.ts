import { MusterError, SessionError } from '../errors/index.js';
import { MAX_EVENT_PAGE } from '../session/index.js';
import type { SessionStore } from '../session/index.js';
import type { Check } from '../util/index.js';
import { assertValid, isBoolean, optional, shape } from '../util/index.js';
import type { AgentEvent } from './events.js';
import { guardStore } from './store-operation.js';

/** What `agent.sessions.watch()` takes (SPEC 15.2). */
export interface WatchOptions {
  /** Yield the logged events after this `seq` (default 0: all that are kept). */
  readonly afterSeq?: number;
  /**
   * Keep watching after the run ends, across the session's next runs, until `signal` aborts
   * (default false: the watch ends with the run's last event).
   */
  readonly follow?: boolean;
  /** Ends the watch (the iteration returns; nothing is thrown). */
  readonly signal?: AbortSignal;
}

/**
 * In place of events the log dropped (`eventLogMaxPerSession`): the events `fromSeq` to
 * `toSeq` are gone. `seq` is `toSeq`, so a watcher may resume after it.
 */
export interface EventLogGap {
  readonly type: 'gap';
  readonly sessionId: string;
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly seq: number;
}

/**
 * What a watch yields: logged events as JSON made them (a `session.failed` error is its
 * `toJSON()`: `name`, `code`, `message`, `details`), each with its `seq`, and gap markers.
 */
export type WatchedEvent = (AgentEvent & { readonly seq: number }) | EventLogGap;

/** How often a watch reads a store that cannot tell it of commits, in ms. */
const FALLBACK_POLL_MS = 250;

/**
 * How often a watch of a running session that logs nothing asks whether a live lease still
 * holds it, in ms: `running` with no live lease is a run that died.
 */
const RUN_CHECK_MS = 1000;

/** The events that end a run. */
const ENDS_RUN: ReadonlySet<string> = new Set([
  'session.completed',
  'session.failed',
  'session.parked',
]);

const watchOptions: Check = shape({
  afterSeq: optional((v) =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
      ? undefined
      : 'must be a whole number of at least 0 (the last seq you saw)',
  ),
  follow: optional(isBoolean),
  signal: optional((v) => (v instanceof AbortSignal ? undefined : 'must be an AbortSignal')),
} satisfies Record<keyof WatchOptions, Check>);

/**
 * The logged events of a session after `afterSeq`, then live ones as any process commits
 * them, until the run ends (or, with `follow`, until `signal` aborts). Its input is checked
 * at once; an unknown session fails the first step with `SESSION_NOT_FOUND`.
 */
export function watchSession(
  store: SessionStore,
  sessionId: unknown,
  options: WatchOptions = {},
): AsyncIterable<WatchedEvent> {
  if (typeof sessionId !== 'string' || sessionId === '')
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'watch() needs the id of a session (a non-empty string) as its first argument.',
    );
  assertValid(options ?? {}, watchOptions, 'watch options');
  const missing = (['appendEvents', 'readEvents'] as const).filter(
    (m) => typeof store[m] !== 'function',
  );
  if (missing.length > 0)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `This agent's session store keeps no event log (it has no ${missing.join(' or ')} method): there is nothing to watch. Use the memory, SQLite or PostgreSQL store.`,
      { details: { sessionId, missing } },
    );
  return watchEvents(store, sessionId, options ?? {});
}

async function* watchEvents(
  store: SessionStore,
  sessionId: string,
  options: WatchOptions,
): AsyncGenerator<WatchedEvent> {
  const { signal, follow = false } = options;
  let after = options.afterSeq ?? 0;
  let dirty = true;
  let wake: (() => void) | undefined;
  const notify = () => {
    dirty = true;
    const w = wake;
    wake = undefined;
    w?.();
  };
  // listen before the first read: a commit in between is then not missed
  const unwatch = store.watchEvents?.(sessionId, notify);
  const timer = unwatch ? undefined : setInterval(notify, FALLBACK_POLL_MS);
  signal?.addEventListener('abort', notify);
  let check: ReturnType<typeof setInterval> | undefined;
  let checkDue = false;
  try {
    const state = await guardStore(sessionId, 'read the session', () => store.get(sessionId));
    if (!state)
      throw new SessionError(
        'SESSION_NOT_FOUND',
        `Session '${sessionId}' does not exist: watch a session once its run has started.`,
        { sessionId },
      );
    // what was logged when the watch attached: an end event up to it is an earlier run's
    const attachedAt = state.eventSeq ?? 0;
    // a session with no run going on (parked, completed, failed): what was logged by then,
    // then the end, whatever its last event is (a decision logged after the park, say)
    const settled = state.status !== 'running' && state.status !== 'idle';
    let runEnded = false;
    // a run that died: what it committed is read once more, then the watch ends
    let orphaned = false;
    const leased = store.leased?.bind(store);
    if (!follow && !settled && leased)
      check = setInterval(() => {
        checkDue = true;
        notify();
      }, RUN_CHECK_MS);
    for (;;) {
      if (signal?.aborted) return;
      dirty = false;
      const page = await guardStore(sessionId, 'read the event log', () =>
        store.readEvents!(sessionId, { afterSeq: after, limit: MAX_EVENT_PAGE }),
      );
      const first = page[0];
      if (first && first.seq > after + 1) {
        const gap = { type: 'gap', sessionId, fromSeq: after + 1, toSeq: first.seq - 1 } as const;
        yield { ...gap, seq: gap.toSeq };
      }
      for (const record of page) {
        yield JSON.parse(record.json) as WatchedEvent;
        after = record.seq;
        // the run going on when the watch attached (or the next one) ends with its end event
        if (!follow && !settled && record.seq > attachedAt && ENDS_RUN.has(record.type))
          runEnded = true;
      }
      if (page.length === MAX_EVENT_PAGE) continue;
      if (runEnded || (!follow && settled && after >= attachedAt) || orphaned) return;
      if (checkDue && leased) {
        checkDue = false;
        if (!(await guardStore(sessionId, 'read the session lease', () => leased(sessionId)))) {
          orphaned = true;
          continue;
        }
      }
      if (!dirty) await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    unwatch?.();
    if (timer) clearInterval(timer);
    if (check) clearInterval(check);
    signal?.removeEventListener('abort', notify);
  }
}
