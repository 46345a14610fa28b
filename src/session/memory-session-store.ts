import { SessionError } from '../errors/index.js';
import { addUsage } from '../model/index.js';
import type {
  SessionLease,
  SessionPatch,
  SessionState,
  SessionStore,
  SessionSummary,
} from './session-store.js';

interface MutableSession {
  state: SessionState;
  messages: SessionState['messages'][number][];
  archiveRefs: string[];
}

/**
 * Sessions in this process's memory. Values are copied in and out, so callers cannot change
 * stored state by accident. Leases make it safe to share one store between agents.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, MutableSession>();
  readonly #leases = new Map<string, string>();

  async create(state: SessionState): Promise<void> {
    if (this.#sessions.has(state.id)) {
      throw new SessionError('SESSION_ALREADY_RUNNING', `Session '${state.id}' already exists.`, {
        sessionId: state.id,
      });
    }
    const copy = structuredClone(state);
    this.#sessions.set(state.id, {
      state: copy,
      messages: [...copy.messages],
      archiveRefs: [...copy.archiveRefs],
    });
  }

  async get(sessionId: string): Promise<SessionState | undefined> {
    const s = this.#sessions.get(sessionId);
    if (!s) return undefined;
    return structuredClone({ ...s.state, messages: s.messages, archiveRefs: s.archiveRefs });
  }

  async update(sessionId: string, patch: SessionPatch): Promise<void> {
    const s = this.#sessions.get(sessionId);
    if (!s) {
      throw new SessionError('SESSION_NOT_FOUND', `Session '${sessionId}' does not exist.`, {
        sessionId,
      });
    }
    if (patch.appendMessages)
      for (const m of patch.appendMessages) s.messages.push(structuredClone(m));
    if (patch.appendArchiveRefs) s.archiveRefs.push(...patch.appendArchiveRefs);
    const { error: _e, ...prev } = s.state;
    const error =
      patch.error === undefined
        ? s.state.error
        : patch.error === null
          ? undefined
          : { ...patch.error };
    s.state = {
      ...prev,
      ...(patch.status !== undefined ? { status: patch.status } : {}),
      ...(patch.iteration !== undefined ? { iteration: patch.iteration } : {}),
      ...(patch.finalContent !== undefined ? { finalContent: patch.finalContent } : {}),
      ...(patch.addUsage !== undefined ? { usage: addUsage(s.state.usage, patch.addUsage) } : {}),
      ...(error !== undefined ? { error } : {}),
      updatedAt: new Date().toISOString(),
    };
  }

  /** Deletes a session; fails with `SESSION_ALREADY_RUNNING` while a run holds its lease. */
  async delete(sessionId: string): Promise<void> {
    if (this.#leases.has(sessionId)) {
      throw new SessionError(
        'SESSION_ALREADY_RUNNING',
        `Session '${sessionId}' is running: wait for its run to end before deleting it.`,
        { sessionId },
      );
    }
    this.#sessions.delete(sessionId);
  }

  async list(): Promise<readonly SessionSummary[]> {
    return [...this.#sessions.values()].map((s) => ({
      id: s.state.id,
      status: s.state.status,
      messageCount: s.messages.length,
      createdAt: s.state.createdAt,
      updatedAt: s.state.updatedAt,
    }));
  }

  async acquire(sessionId: string, owner: string): Promise<SessionLease | undefined> {
    if (this.#leases.has(sessionId)) return undefined;
    this.#leases.set(sessionId, owner);
    return {
      release: async () => {
        if (this.#leases.get(sessionId) === owner) this.#leases.delete(sessionId);
      },
    };
  }
}
