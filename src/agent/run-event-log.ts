import { STABLE_LOG_ENTRY } from '../session/index.js';
import type { SessionLogEntry, SessionStore, SessionUpdateResult } from '../session/index.js';
import type { AgentEvent } from './events.js';

/**
 * How long a logged event waits for a step commit to carry it before the log commits it on its
 * own: a call that answers sooner usually has its `tool.decision` and `tool.called` ride its
 * result's commit (one store write less per turn). Longer only while the run's own write is in
 * flight, or after a failed write (the flush then backs off from 100 ms to 5 s).
 */
export const OWN_FLUSH_DELAY_MS = 10;

/** Numbers events where the store keeps no log: this process's counter, not durable (SPEC 10). */
const processSeq = { last: 0 };

/**
 * One run's side of its session's event log (SPEC 15.2), once the run holds its lease and has
 * opened the session. The store numbers logged events in the step commit that writes them
 * (`SessionUpdateResult.firstEventSeq`); the run publishes them (iterator, `onEvent`) only
 * once that commit succeeded, with their `seq`. Events reported after a logged event that is
 * not committed yet (a `model.delta`, a child run's event) wait behind it, so the run's events
 * keep their order; a `model.delta` is published with the `seq` of the last logged event and
 * its `deltaIndex` after it (or logged itself with `eventLog: 'all'`).
 *
 * A logged event rides the run's next step commit; when none comes at once (a tool runs, a
 * model turn streams, a person is asked), the log commits it on its own (`flush`, an update
 * with nothing but events) after OWN_FLUSH_DELAY_MS. At most one commit that
 * carries events is in flight: a commit that would carry more waits for it (`waiting`), so
 * events are published in the order of their numbers. Events whose commit never succeeds
 * (the run could not write, or lost its lease) are published without `seq` when the run ends
 * (`close`): they are not in the log.
 *
 * With a store that keeps no log, events are numbered from this process's one counter and
 * published at once (not durable).
 */
export class RunEventLog {
  #last: number;
  #deltaIndex = 0;
  readonly #held: HeldEvent[] = [];
  /** Logged events of `#held` (from its start) that the commit in flight carries. */
  #taken = 0;
  /** True while a commit carrying events is in flight. */
  #inFlight = false;
  /** Who waits for that commit to end ({@link idle}). */
  #idleWaiters: (() => void)[] | undefined;
  #flushTimer: NodeJS.Timeout | undefined;
  /** How long the next flush of its own waits after one failed (0: the next turn). */
  #flushBackoffMs = 0;
  #closed = false;
  /** The run's store operations in flight. */
  #busy = 0;
  readonly #durable: boolean;
  readonly #all: boolean;
  readonly #publish: (event: AgentEvent) => void;
  readonly #flush: () => Promise<unknown>;
  /** True until a commit reports no steering waiting. */
  steeringMaybe = true;

  private constructor(
    last: number,
    durable: boolean,
    all: boolean,
    publish: (event: AgentEvent) => void,
    flush: () => Promise<unknown>,
  ) {
    this.#last = last;
    this.#durable = durable;
    this.#all = all;
    this.#publish = publish;
    this.#flush = flush;
  }

  /**
   * The log of a run of a session whose last logged event is `eventSeq`: `publish` adds an
   * event to the run once it may be seen, `flush` commits the events waiting (an update of
   * the session with an empty patch, through the run's guarded store).
   */
  static open(
    store: SessionStore,
    eventSeq: number,
    all: boolean,
    publish: (event: AgentEvent) => void,
    flush: () => Promise<unknown>,
  ): RunEventLog {
    const durable = hasLog(store);
    return new RunEventLog(durable ? eventSeq : processSeq.last, durable, all, publish, flush);
  }

  /** The seq of the last logged event published. */
  get lastSeq(): number {
    return this.#last;
  }

  /** True when a commit carrying events is in flight and more events wait for the next one. */
  get waiting(): boolean {
    if (!this.#inFlight) return false;
    let logged = 0;
    for (const h of this.#held) if (h.kind === 'logged') logged++;
    return logged > this.#taken;
  }

  /** A store operation of the run starts. */
  enter(): void {
    this.#busy++;
  }

  /** A store operation of the run ended: when none is left, held events may go on their own. */
  leave(): void {
    if (--this.#busy === 0 && this.#held.length > 0) this.#scheduleFlush();
  }

  /** True while events wait for a commit. */
  get holding(): boolean {
    return this.#held.length > 0;
  }

  /**
   * Publishes an event a store logged itself (`steering.delivered`, in the take's transaction),
   * numbered `seq`: it is the last logged event now.
   */
  logged(event: AgentEvent, seq: number): void {
    if (seq > this.#last) {
      this.#last = seq;
      this.#deltaIndex = 0;
    }
    this.#publish(stamped(event, seq));
  }

  /** Resolves once no commit carrying events is in flight. */
  idle(): Promise<void> {
    if (!this.#inFlight) return Promise.resolve();
    return new Promise((resolve) => (this.#idleWaiters ??= []).push(resolve));
  }

  /** Adds an event of the run: published at once, or once the commit that logs it succeeded. */
  emit(event: AgentEvent): void {
    if (this.#closed || !this.#durable) return this.#publish(this.#stampNow(event));
    if (event.type === 'model.delta' && !this.#all) {
      if (this.#held.length === 0)
        return this.#publish(stamped(event, this.#last, this.#deltaIndex++));
      this.#held.push(new HeldEvent('delta', event));
      return;
    }
    this.#held.push(new HeldEvent('logged', event));
    this.#scheduleFlush();
  }

  /**
   * Holds an event for the commit the run makes next, with no flush of its own (the commit
   * that opens the run carries its first events); it is published once that commit succeeded.
   * False, holding nothing, when the store keeps no log: emit it once the commit is done.
   */
  hold(event: AgentEvent): boolean {
    if (this.#closed || !this.#durable) return false;
    this.#held.push(new HeldEvent('logged', event));
    return true;
  }

  /** Adds an event that is not the run's own (a child run's, numbered by its own log). */
  forward(event: AgentEvent): void {
    if (this.#held.length === 0 || this.#closed) return this.#publish(event);
    this.#held.push(new HeldEvent('as-is', event));
  }

  /**
   * Holds the run's last event for the commit that ends the run (no flush of its own): it is
   * published when that commit succeeds, or by {@link close}.
   */
  stage(event: AgentEvent): void {
    if (this.#closed) return;
    this.#held.push(new HeldEvent(this.#durable ? 'logged' : 'as-is', this.#stampNow(event)));
  }

  /** Forgets a staged event whose commit failed (it is not published). */
  drop(event: AgentEvent): void {
    const at = this.#held.findIndex((h) => h.event === event);
    if (at >= 0 && !this.#isTaken(this.#held[at]!)) this.#held.splice(at, 1);
  }

  /** The events waiting for a commit, handed to it (`undefined` when none, or one in flight). */
  take(): readonly SessionLogEntry[] | undefined {
    if (!this.#durable || this.#inFlight || this.#closed) return undefined;
    const entries: SessionLogEntry[] = [];
    for (const h of this.#held) if (h.kind === 'logged') entries.push(h);
    if (entries.length === 0) return undefined;
    this.#taken = entries.length;
    this.#inFlight = true;
    return entries;
  }

  /**
   * What a commit reported; `carried` when it carried the taken events, which are numbered
   * from its `firstEventSeq` and published now, with the events held behind them.
   */
  committed(result: void | SessionUpdateResult, carried: boolean): void {
    this.steeringMaybe = result?.steeringPending ?? true;
    if (!carried) return;
    if (this.#flushBackoffMs > 0 && this.#flushTimer) {
      // the store answers again: a flush still backing off would hold later events that long
      clearTimeout(this.#flushTimer);
      this.#flushTimer = undefined;
    }
    this.#flushBackoffMs = 0;
    // a custom store that does not report its numbers: the run counts on from its last
    let seq = (result?.firstEventSeq ?? this.#last + 1) - 1;
    let left = this.#taken;
    let count = 0;
    for (const h of this.#held) {
      if (h.kind === 'logged' && left-- === 0) break;
      count++;
    }
    const ready = this.#held.splice(0, count);
    this.#settle();
    for (const h of ready) {
      if (h.kind !== 'logged') {
        this.#publishHeld(h);
        continue;
      }
      this.#last = ++seq;
      this.#deltaIndex = 0;
      this.#publish(stamped(h.event, seq));
    }
    if (this.#held.length > 0) this.#scheduleFlush();
  }

  /**
   * The commit that carried the taken events failed: they wait for the next one, and a flush
   * of its own waits 100 ms, doubling up to 5 s while commits keep failing, so a store that is
   * down is not asked at every turn of the event loop.
   */
  failed(): void {
    this.#flushBackoffMs = Math.min(Math.max(this.#flushBackoffMs * 2, 100), 5000);
    this.#settle();
  }

  /**
   * Ends the log with the run: what is still held (its commit never succeeded) is published
   * without `seq`, in order; later events are published at once.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const held = this.#held.splice(0);
    this.#taken = 0;
    for (const h of held) this.#publishHeld(h);
  }

  #isTaken(h: HeldEvent): boolean {
    if (!this.#inFlight || h.kind !== 'logged') return false;
    let n = 0;
    for (const x of this.#held) {
      if (x.kind !== 'logged') continue;
      if (n++ >= this.#taken) return false;
      if (x === h) return true;
    }
    return false;
  }

  #publishHeld(h: HeldEvent): void {
    if (h.kind === 'delta') this.#publish(stamped(h.event, this.#last, this.#deltaIndex++));
    else this.#publish(h.event);
  }

  #settle(): void {
    const waiters = this.#idleWaiters;
    this.#inFlight = false;
    this.#idleWaiters = undefined;
    this.#taken = 0;
    if (waiters) for (const resolve of waiters) resolve();
  }

  /** Numbers an event now: the process's counter without a log, or a delta after the last. */
  #stampNow(event: AgentEvent): AgentEvent {
    if (event.type === 'model.delta' && !this.#all)
      return stamped(event, this.#last, this.#deltaIndex++);
    // a closed log: nothing more is committed, so the event goes out unnumbered
    if (this.#durable) return event;
    // no log: the process's one counter, so concurrent runs never share a seq
    this.#deltaIndex = 0;
    return stamped(event, (this.#last = ++processSeq.last));
  }

  /**
   * Commits the held events after {@link OWN_FLUSH_DELAY_MS} (or the back-off after a failed
   * flush), unless a commit takes them first or the run is at the store (then once its
   * operations are done).
   */
  #scheduleFlush(): void {
    if (this.#flushTimer || this.#closed) return;
    const flush = () => {
      this.#flushTimer = undefined;
      // the run is at the store already: its operation's end asks again
      if (this.#closed || this.#inFlight || this.#busy > 0) return;
      if (!this.#held.some((h) => h.kind === 'logged')) return;
      // a failure leaves them held: the next step commit carries them, or the run's end
      // publishes them without seq (and the next flush of its own waits: see failed())
      this.#flush().catch(() => {});
    };
    if (this.#flushBackoffMs === 0) {
      this.#flushTimer = setTimeout(flush, OWN_FLUSH_DELAY_MS);
    } else {
      const timer = setTimeout(flush, this.#flushBackoffMs);
      timer.unref();
      this.#flushTimer = timer;
    }
  }
}

/** True when `store` keeps an event log. */
export function hasLog(store: SessionStore): boolean {
  return typeof store.appendEvents === 'function' && typeof store.readEvents === 'function';
}

/**
 * An event of the run waiting to be published, in the order the run reported it; a logged one
 * is also its log entry: its JSON text (without `seq`), made when the store first asks.
 */
class HeldEvent implements SessionLogEntry {
  #json: string | undefined;

  /** `logged`: waits for the commit that numbers it; `delta`: numbered when published. */
  constructor(
    readonly kind: 'logged' | 'delta' | 'as-is',
    readonly event: AgentEvent,
  ) {}

  get type(): string {
    return this.event.type;
  }

  /** The entry as `JSON.stringify` (a custom store that serializes the patch) should see it. */
  toJSON(): SessionLogEntry {
    return { type: this.type, json: this.json };
  }

  /** The run changes neither its event nor its text once handed to the store. */
  get [STABLE_LOG_ENTRY](): true {
    return true;
  }

  get json(): string {
    if (this.#json !== undefined) return this.#json;
    const { event } = this;
    // a store that makes the text after the run stamped the event: the text leaves `seq` out
    return (this.#json = eventJson(event.seq === undefined ? event : { ...event, seq: undefined }));
  }
}

/**
 * The event, numbered: stamped in place, since the run built it and hands it to no one before
 * it is numbered (a copy per event cost the loop a tenth of its time).
 */
function stamped(event: AgentEvent, seq: number, deltaIndex?: number): AgentEvent {
  const e = event as { seq?: number; deltaIndex?: number };
  e.seq = seq;
  if (deltaIndex !== undefined) e.deltaIndex = deltaIndex;
  return event;
}

/**
 * An event as JSON text. Muster's events hold JSON data, and a `MusterError` as its `toJSON()`
 * (code, message, details), so plain `JSON.stringify` serves them (an `Error` without `toJSON`
 * inside a host's data is `{}` there, as in any JSON). A value it rejects (a `bigint` in a
 * host's data) sends the event down the slow path: `bigint`s as strings, errors without
 * `toJSON` as their name and message; a cycle logs the event's frame.
 */
function eventJson(event: AgentEvent): string {
  try {
    return JSON.stringify(event);
  } catch {
    try {
      return JSON.stringify(event, (_key, value: unknown) =>
        value instanceof Error && !('toJSON' in value)
          ? { name: value.name, message: value.message }
          : typeof value === 'bigint'
            ? String(value)
            : value,
      );
    } catch {
      const { type, timestamp, sessionId, runId } = event;
      return JSON.stringify({ type, timestamp, sessionId, runId, unserializable: true });
    }
  }
}
