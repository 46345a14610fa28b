export type {
  SessionStatus,
  SessionErrorRecord,
  SessionState,
  SessionPatch,
  SessionSummary,
  SessionListQuery,
  SessionPage,
  SessionLeaseRef,
  SessionWriteOptions,
  SessionLease,
  SessionStore,
} from './session-store.js';
export type { SessionArchive, SessionArchiveItem } from './session-archive.js';
export type {
  SessionBudget,
  SessionBudgetLimits,
  BudgetLimitName,
  BudgetSpent,
} from './session-budget.js';
export type {
  Wait,
  WaitKind,
  TaskWaitHandle,
  WaitDecision,
  ApprovalWaitDecision,
  ElicitationWaitDecision,
  TaskWaitDecision,
  WaitQuery,
  WaitPage,
  DecideOptions,
  SessionWaits,
} from './session-waits.js';
export type {
  SessionLogEntry,
  SessionLogEvent,
  SessionEventQuery,
  SessionUpdateResult,
  SessionEventLog,
  SteeringTake,
} from './session-event-log.js';
export { DEFAULT_EVENT_LOG_MAX, MAX_EVENT_PAGE, STABLE_LOG_ENTRY } from './session-event-log.js';
export { waitStaleError } from './wait-rules.js';
export { MemorySessionStore } from './memory-session-store.js';
export type { MemorySessionStoreOptions } from './memory-session-store.js';
export type {
  DecisionQuery,
  DispatchableStore,
  WaitDecidedInTransaction,
} from './session-dispatch.js';
export { isDispatchable } from './session-dispatch.js';
export type { FleetState, FleetJob } from './session-fleet.js';
export { isFleetStore } from './session-fleet.js';
