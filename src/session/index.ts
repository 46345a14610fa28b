export type {
  SessionStatus,
  SessionErrorRecord,
  SessionState,
  SessionPatch,
  SessionSummary,
  SessionLease,
  SessionStore,
} from './session-store.js';
export { MemorySessionStore } from './memory-session-store.js';
