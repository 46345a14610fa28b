import { deepFreeze } from '../util/index.js';
import type { SessionWriteOptions } from './session-store.js';
import type {
  DecideOptions,
  SessionWaits,
  Wait,
  WaitDecision,
  WaitPage,
  WaitQuery,
} from './session-waits.js';
import { pageSize } from './session-rules.js';
import { checkDecision } from './wait-rules.js';

/**
 * The waits of a {@link MemorySessionStore}: in this process only. Stored waits are
 * deep-frozen copies; a decision replaces the stored wait in one synchronous step, so of
 * concurrent decisions exactly one wins.
 */
export class MemoryWaits implements SessionWaits {
  /** sessionId -> waitId -> wait. */
  readonly #waits = new Map<string, Map<string, Wait>>();
  readonly #checkWrite: (sessionId: string, options: SessionWriteOptions | undefined) => void;
  readonly #log: (sessionId: string, body: { readonly type: string }) => void;

  /** `log` logs a decision's event as the session's next one. */
  constructor(
    checkWrite: (sessionId: string, options: SessionWriteOptions | undefined) => void,
    log: (sessionId: string, body: { readonly type: string }) => void = () => undefined,
  ) {
    this.#checkWrite = checkWrite;
    this.#log = log;
  }

  /**
   * Stores a wait, or replaces the stored one of the same id while that one is pending; a
   * decided wait stays as it was (a put never undoes a decision).
   */
  async put(wait: Wait, options?: SessionWriteOptions): Promise<void> {
    this.#checkWrite(wait.sessionId, options);
    const copy = deepFreeze(JSON.parse(JSON.stringify(wait)) as Wait);
    let session = this.#waits.get(wait.sessionId);
    if (!session) this.#waits.set(wait.sessionId, (session = new Map()));
    if (session.get(wait.id)?.status === 'decided') return;
    session.set(wait.id, copy);
  }

  /** The wait `waitId` of the session, or `undefined` when there is none. */
  async get(sessionId: string, waitId: string): Promise<Wait | undefined> {
    return this.#waits.get(sessionId)?.get(waitId);
  }

  /** One page of the waits that match `query`. */
  async list(query: WaitQuery = {}): Promise<WaitPage> {
    const limit = pageSize({ ...(query.limit !== undefined ? { limit: query.limit } : {}) });
    const sessions =
      query.sessionId !== undefined
        ? [[query.sessionId, this.#waits.get(query.sessionId)] as const]
        : [...this.#waits.entries()];
    const all = sessions
      .flatMap(([, waits]) => [...(waits?.values() ?? [])])
      .filter((w) => query.kind === undefined || w.kind === query.kind)
      .filter((w) => query.status === undefined || w.status === query.status)
      .filter((w) => query.cursor === undefined || cursorOf(w) > query.cursor)
      .sort((a, b) => (cursorOf(a) < cursorOf(b) ? -1 : 1));
    const page = all.slice(0, limit);
    return all.length > limit
      ? { waits: page, nextCursor: cursorOf(page.at(-1)!) }
      : { waits: page };
  }

  /**
   * Records a decision on a pending wait and returns the decided wait. Fails with
   * `WAIT_NOT_FOUND` for an unknown wait, one already decided (the message says so) or an
   * expired one (the message says so); with `WAIT_STALE` when `options.fingerprint` differs
   * from the stored one. A failed call changes nothing.
   */
  async decide(
    sessionId: string,
    waitId: string,
    decision: WaitDecision,
    options?: DecideOptions,
  ): Promise<Wait> {
    const wait = this.#waits.get(sessionId)?.get(waitId);
    const checked = checkDecision(sessionId, waitId, wait, decision, options);
    const decided = deepFreeze({
      ...JSON.parse(JSON.stringify(wait)),
      status: 'decided',
      decision: checked,
      decidedAt: new Date(options?.now ?? Date.now()).toISOString(),
    } as Wait);
    this.#waits.get(sessionId)!.set(waitId, decided);
    if (options?.event) this.#log(sessionId, options.event(decided));
    return decided;
  }

  /** Removes waits once a resumed run has used them (or replaced them). */
  async remove(
    sessionId: string,
    waitIds: readonly string[],
    options?: SessionWriteOptions,
  ): Promise<void> {
    this.#checkWrite(sessionId, options);
    const session = this.#waits.get(sessionId);
    for (const id of waitIds) session?.delete(id);
    if (session?.size === 0) this.#waits.delete(sessionId);
  }

  /** Drops every wait of a deleted session. */
  dropSession(sessionId: string): void {
    this.#waits.delete(sessionId);
  }
}

/** The order of a listing: session id, then wait id (both free of the separator). */
function cursorOf(wait: Wait): string {
  return `${wait.sessionId}\u0000${wait.id}`;
}
