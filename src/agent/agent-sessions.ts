import { SessionError } from '../errors/index.js';
import type { SessionListQuery, SessionPage, SessionState } from '../session/index.js';
import type { AgentScope } from './agent-scope.js';
import { guardedStore, guardStore } from './store-guard.js';

/** Read access to an agent's sessions. */
export interface AgentSessions {
  get(sessionId: string): Promise<SessionState | undefined>;
  /** One page of sessions by id; pass `nextCursor` back as `cursor` for the next one. */
  list(query?: SessionListQuery): Promise<SessionPage>;
  /** Deletes a session; fails with `SESSION_ALREADY_RUNNING` while a run uses it. */
  delete(sessionId: string): Promise<void>;
}

/** The `agent.sessions` facade over the runtime's store; failures are typed like a run's. */
export function agentSessions(runtime: AgentScope): AgentSessions {
  const store = guardedStore(runtime.store);
  return {
    get: (id) => store.get(id),
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
  };
}
