import { addUsage } from '../model/index.js';
import type { ModelMessage } from '../model/index.js';
import { copyData, deepFreeze, isDeepFrozen, isoNow } from '../util/index.js';
import type {
  SessionLease,
  SessionListQuery,
  SessionPage,
  SessionPatch,
  SessionState,
  SessionStore,
  SessionWriteOptions,
} from './session-store.js';
import type { LeaseRecord } from './session-rules.js';
import { MemoryWaits } from './memory-waits.js';
import { MemoryEventLog } from './memory-event-log.js';
import { eventLogMax, logEntry } from './session-event-log.js';
import type {
  SessionEventQuery,
  SessionLogEntry,
  SessionLogEvent,
  SessionUpdateResult,
  SteeringTake,
} from './session-event-log.js';
import {
  existsError,
  FIRST_TOKEN,
  heldError,
  isLive,
  leaseLostError,
  notFoundError,
  pageSize,
  writeAllowed,
} from './session-rules.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface MutableSession {
  /** Private and changed in place; its `usage` and `error` are frozen (they are handed out). */
  state: Mutable<Omit<SessionState, 'messages' | 'archiveRefs' | 'startedCalls'>>;
  messages: SessionState['messages'][number][];
  archiveRefs: string[];
  startedCalls: string[];
}

/** Options of {@link MemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** Events kept per session (default 10000); the oldest go first, seen as a `gap`. */
  readonly eventLogMaxPerSession?: number;
}

/**
 * Sessions in this process's memory. What a caller hands in is copied and deep-frozen (a
 * message already deep-frozen, as the agent loop builds them, is kept as it is, without a
 * copy), and what `get` returns is frozen, so callers cannot change stored state by accident.
 * Leases carry fencing tokens, as in the durable stores, so one store can be shared between
 * agents of a process.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, MutableSession>();
  readonly #leases = new Map<string, LeaseRecord>();
  #lastToken = FIRST_TOKEN - 1;
  readonly #log: MemoryEventLog;
  /** The waits of parked runs (SPEC 15.1), in this process. */
  readonly waits: MemoryWaits;

  constructor(options: MemorySessionStoreOptions = {}) {
    const log = new MemoryEventLog(eventLogMax(options?.eventLogMaxPerSession));
    this.#log = log;
    this.waits = new MemoryWaits(
      (sessionId, writeOptions) => this.#checkWrite(sessionId, writeOptions),
      (sessionId, body) => log.appendNext(sessionId, body),
    );
  }

  /** Stores a new session; fails with `SESSION_ALREADY_RUNNING` when its id is taken. */
  async create(state: SessionState, options?: SessionWriteOptions): Promise<void> {
    if (this.#sessions.has(state.id)) throw existsError(state.id);
    this.#checkWrite(state.id, options);
    const { messages, archiveRefs, startedCalls, ...rest } = state;
    const stored = messages.map(isolated);
    const copy = copyData({ rest, archiveRefs, startedCalls: startedCalls ?? [] });
    deepFreeze(copy.rest.usage);
    if (copy.rest.error) deepFreeze(copy.rest.error);
    if (copy.rest.budget) deepFreeze(copy.rest.budget);
    this.#sessions.set(state.id, {
      state: copy.rest,
      messages: stored,
      archiveRefs: copy.archiveRefs as string[],
      startedCalls: copy.startedCalls as string[],
    });
  }

  /** The session's state, or `undefined` for an unknown id. */
  async get(sessionId: string): Promise<SessionState | undefined> {
    const s = this.#sessions.get(sessionId);
    if (!s) return undefined;
    // every stored value is deep-frozen: a frozen snapshot of the arrays is all a reader needs
    return Object.freeze({
      ...s.state,
      eventSeq: this.#log.lastSeq(sessionId),
      messages: Object.freeze(s.messages.slice()),
      archiveRefs: Object.freeze(s.archiveRefs.slice()),
      startedCalls: Object.freeze(s.startedCalls.slice()),
    });
  }

  /** A step commit: one transaction (PostgreSQL: one statement, one round trip). */
  async update(
    sessionId: string,
    patch: SessionPatch,
    options?: SessionWriteOptions,
  ): Promise<void | SessionUpdateResult> {
    const s = this.#sessions.get(sessionId);
    if (!s) throw notFoundError(sessionId);
    this.#checkWrite(sessionId, options);
    // copy everything first: a patch that cannot be copied changes nothing
    const messages = patch.appendMessages ? patch.appendMessages.map(isolated) : [];
    const finalOutput = patch.finalOutput
      ? deepFreeze(JSON.parse(JSON.stringify(patch.finalOutput.value) ?? 'null'))
      : undefined;
    const error =
      patch.error === undefined || patch.error === null
        ? patch.error
        : Object.freeze({ ...patch.error });
    const budget = patch.budget ? deepFreeze(copyData(patch.budget)) : undefined;
    s.messages.push(...messages);
    if (patch.appendArchiveRefs) s.archiveRefs.push(...patch.appendArchiveRefs);
    if (patch.appendStartedCalls) s.startedCalls.push(...patch.appendStartedCalls);
    const state = s.state;
    if (patch.status !== undefined) state.status = patch.status;
    if (patch.iteration !== undefined) state.iteration = patch.iteration;
    if (patch.finalContent !== undefined) state.finalContent = patch.finalContent;
    if (patch.finalOutput === null) delete state.finalOutput;
    else if (patch.finalOutput !== undefined) state.finalOutput = finalOutput;
    if (patch.addUsage !== undefined)
      state.usage = Object.freeze(addUsage(state.usage, patch.addUsage));
    if (error === null) delete state.error;
    else if (error !== undefined) state.error = error;
    if (patch.budget === null) delete state.budget;
    else if (budget !== undefined) state.budget = budget;
    state.updatedAt = isoNow();
    return this.#log.commit(sessionId, patch.appendEvents);
  }

  /**
   * Appends events (fenced like `update`), numbered by the store like a step commit's; for
   * events that no step commit carries.
   */
  async appendEvents(
    sessionId: string,
    events: readonly SessionLogEntry[],
    options?: SessionWriteOptions,
  ): Promise<void | SessionUpdateResult> {
    if (!this.#sessions.has(sessionId)) throw notFoundError(sessionId);
    this.#checkWrite(sessionId, options);
    const firstEventSeq = this.#log.append(sessionId, events);
    return firstEventSeq !== undefined ? { firstEventSeq } : {};
  }

  /** The kept events after `query.afterSeq`, oldest first. */
  async readEvents(
    sessionId: string,
    query: SessionEventQuery,
  ): Promise<readonly SessionLogEvent[]> {
    return this.#log.read(sessionId, query);
  }

  /**
   * Calls `listener` whenever events of the session may have been committed, by any process
   * the store can hear (PostgreSQL: LISTEN/NOTIFY; SQLite: the same host, by polling);
   * returns the function that stops. Without it, watchers poll `readEvents`.
   */
  watchEvents(sessionId: string, listener: () => void): () => void {
    return this.#log.watch(sessionId, listener);
  }

  /**
   * Queues a user message for the session's run (any process); `SESSION_NOT_FOUND` for an
   * unknown session.
   */
  async steer(sessionId: string, text: string): Promise<void> {
    if (!this.#sessions.has(sessionId)) throw notFoundError(sessionId);
    this.#log.steer(sessionId, text);
  }

  /**
   * Takes the queued steering messages of the session, oldest first, and appends them to its
   * transcript as user messages, in one transaction fenced like `update`: each is taken once.
   * With `take.event`, a store with a log logs one event per message in that transaction.
   */
  async takeSteering(
    sessionId: string,
    options?: SessionWriteOptions,
    take?: SteeringTake,
  ): Promise<string[]> {
    const s = this.#sessions.get(sessionId);
    if (!s) throw notFoundError(sessionId);
    this.#checkWrite(sessionId, options);
    // built first: a builder that throws takes nothing
    const texts = this.#log.peekSteering(sessionId);
    const entries = take?.event ? texts.map((text) => logEntry(take.event!(text))) : [];
    this.#log.takeSteering(sessionId);
    for (const text of texts)
      s.messages.push(deepFreeze({ role: 'user', content: [{ type: 'text', text }] }));
    if (texts.length > 0) s.state.updatedAt = isoNow();
    const first = this.#log.append(sessionId, entries);
    if (first !== undefined) take?.logged?.(first);
    return texts;
  }

  /** Deletes a session; fails with `SESSION_ALREADY_RUNNING` while a live lease holds it. */
  async delete(sessionId: string): Promise<void> {
    if (isLive(this.#leases.get(sessionId), Date.now())) throw heldError(sessionId);
    this.#sessions.delete(sessionId);
    this.waits.dropSession(sessionId);
    this.#log.drop(sessionId);
    // a deleted session keeps no lease record (the store would otherwise hold one per id ever
    // used); tokens come from one counter, so an old holder's token never matches a new lease
    this.#leases.delete(sessionId);
  }

  /** One page of the stored sessions, ordered by id. */
  async list(query?: SessionListQuery): Promise<SessionPage> {
    const limit = pageSize(query);
    const ids = [...this.#sessions.keys()]
      .filter((id) => query?.cursor === undefined || id > query.cursor)
      .filter(
        (id) =>
          query?.status === undefined || this.#sessions.get(id)!.state.status === query.status,
      )
      .sort();
    const page = ids.slice(0, limit).map((id) => {
      const s = this.#sessions.get(id)!;
      return {
        id,
        status: s.state.status,
        messageCount: s.messages.length,
        createdAt: s.state.createdAt,
        updatedAt: s.state.updatedAt,
      };
    });
    return ids.length > limit
      ? { sessions: page, nextCursor: page.at(-1)!.id }
      : { sessions: page };
  }

  /**
   * True while a live lease holds the session (its run goes on in some process). A watch asks
   * it of a `running` session that logs nothing: `running` with no live lease is a run that
   * died (SPEC 15.2).
   */
  async leased(sessionId: string): Promise<boolean> {
    return isLive(this.#leases.get(sessionId), Date.now());
  }

  /**
   * Claims a session for one running owner for `ttlMs`; resolves `undefined` while another
   * owner holds a live lease. An expired lease is taken over, with a higher fencing token.
   */
  async acquire(
    sessionId: string,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    const now = Date.now();
    const current = this.#leases.get(sessionId);
    if (isLive(current, now)) return undefined;
    // one counter for the store: a token is never handed out twice, even to a session
    // deleted and created again (its lease record is dropped with it)
    const token = ++this.#lastToken;
    this.#leases.set(sessionId, { token, owner, expiresAt: now + ttlMs });
    return {
      token,
      owner,
      renew: async () => {
        const at = Date.now();
        const rec = this.#leases.get(sessionId);
        if (!isLive(rec, at) || rec!.token !== token) throw leaseLostError(sessionId);
        this.#leases.set(sessionId, { token, owner, expiresAt: at + ttlMs });
      },
      release: async () => {
        const rec = this.#leases.get(sessionId);
        if (rec?.token === token) this.#leases.set(sessionId, { token, expiresAt: 0 });
      },
    };
  }

  #checkWrite(sessionId: string, options: SessionWriteOptions | undefined): void {
    const token = options?.lease?.token;
    if (writeAllowed(this.#leases.get(sessionId), token, Date.now())) return;
    throw token === undefined ? heldError(sessionId) : leaseLostError(sessionId);
  }
}

/** A message the store may keep: shared when deep-frozen already, else a deep-frozen copy. */
function isolated(message: ModelMessage): ModelMessage {
  return isDeepFrozen(message) ? message : deepFreeze(copyData(message));
}
