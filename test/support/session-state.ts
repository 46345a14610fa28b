import type { SessionState } from '../../src/index.js';

/**
 * A new session's state for a store's `create()`, as a run would open it: no messages, no
 * usage, created now; `fields` replace any of it (status `running` unless given).
 */
export function sessionState(id: string, fields: Partial<SessionState> = {}): SessionState {
  const now = new Date().toISOString();
  return {
    id,
    status: 'running',
    messages: [],
    iteration: 0,
    createdAt: now,
    updatedAt: now,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    archiveRefs: [],
    ...fields,
  };
}
