import { SessionError } from '../errors/index.js';
import type { SessionListQuery, SessionPage, SessionState } from '../session/index.js';
import type { ContextPage } from '../context/index.js';
import type { ToolReturn } from '../tools/index.js';
import type { AgentScope } from './agent-scope.js';
import { archiveDirectResult, listArchived, readArchivePage } from './session-archive-access.js';
import type {
  ArchivedItemSummary,
  ArchivedToolResult,
  ArchiveReadOptions,
} from './session-archive-access.js';
import { guardedStore } from './store-guard.js';
import { guardStore } from './store-operation.js';
import { fromStored } from './stored-form.js';
import { listWaits } from './wait-decisions.js';
import type { WaitPage, WaitQuery } from '../session/index.js';
import { watchSession } from './session-watch.js';
import type { WatchedEvent, WatchOptions } from './session-watch.js';

/** Read access to an agent's sessions. */
export interface AgentSessions {
  /**
   * A session as stored; a tool call whose arguments nest deeper than 256 levels
   * (`MAX_DATA_DEPTH`) shows them as their JSON text, as a run takes them up.
   */
  get(sessionId: string): Promise<SessionState | undefined>;
  /** One page of sessions by id; pass `nextCursor` back as `cursor` for the next one. */
  list(query?: SessionListQuery): Promise<SessionPage>;
  /** Deletes a session; fails with `SESSION_ALREADY_RUNNING` while a run uses it. */
  delete(sessionId: string): Promise<void>;
  /**
   * Treats the result of a tool call made outside a run (a console's direct call) as a run
   * would: projected for the model, and archived in `sessionId`'s archive when it is over
   * `mcp.archiveThresholdBytes` or carries media.
   */
  archiveResult(
    sessionId: string,
    result: ToolReturn,
    call: { readonly toolName: string; readonly callId: string },
  ): Promise<ArchivedToolResult>;
  /**
   * One page of an archived item of `sessionId`, as the `context` tool reads it; `undefined`
   * when the session has no such ref (refs of other sessions are unknown here).
   */
  readArchive(
    sessionId: string,
    ref: string,
    options?: ArchiveReadOptions,
  ): Promise<ContextPage | undefined>;
  /** The archived items of `sessionId` (of one call with `callId`), oldest first, no payloads. */
  listArchive(sessionId: string, callId?: string): Promise<readonly ArchivedItemSummary[]>;
  /**
   * The waits of parked runs across sessions, whichever process parked them (SPEC 15.1): an
   * inbox to decide from. Empty when the store keeps no waits.
   */
  waits(query?: WaitQuery): Promise<WaitPage>;
  /**
   * The logged events of a session after `afterSeq` (SPEC 15.2), then live ones as they are
   * committed by any process with the same store (PostgreSQL: LISTEN/NOTIFY; SQLite: the
   * same host), until its run ends, or with `follow: true` until `signal` aborts. Pass the
   * last `seq` you saw to resume after a reload: nothing is missed. Dropped events
   * (`eventLogMaxPerSession`) show as one `gap`.
   *
   * @example
   * ```ts
   * for await (const ev of agent.sessions.watch(sessionId, { afterSeq: lastSeen }))
   *   lastSeen = ev.seq;
   * ```
   */
  watch(sessionId: string, options?: WatchOptions): AsyncIterable<WatchedEvent>;
}

/** The `agent.sessions` facade over the runtime's store; failures are typed like a run's. */
export function agentSessions(runtime: AgentScope): AgentSessions {
  const store = guardedStore(runtime.store);
  return {
    get: async (id) => {
      const state = await store.get(id);
      if (state === undefined) return undefined;
      const messages = fromStored(state.messages);
      return messages === state.messages ? state : { ...state, messages };
    },
    list: async (query) => {
      const list = runtime.store.list?.bind(runtime.store);
      return list ? guardStore('', 'list the sessions', () => list(query)) : { sessions: [] };
    },
    delete: async (id) => {
      if (runtime.running.has(id)) {
        throw new SessionError(
          'SESSION_ALREADY_RUNNING',
          `Session '${id}' is running: wait for it (awaitIdle) before deleting it.`,
          { sessionId: id },
        );
      }
      await store.delete(id);
      await runtime.archive.deleteSession?.(id);
    },
    archiveResult: (id, result, call) => archiveDirectResult(runtime, id, result, call),
    readArchive: (id, ref, options) => readArchivePage(runtime, id, ref, options),
    listArchive: (id, callId) => listArchived(runtime, id, callId),
    waits: (query) => listWaits(runtime, query),
    watch: (id, options) => watchSession(runtime.store, id, options),
  };
}
