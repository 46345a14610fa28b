export {
  Agent,
  agentDispatchFacts,
  agentSessionStore,
  agentStartRun,
  createAgent,
} from './agent.js';
export type { AgentDispatchFacts } from './agent.js';
export type { AgentSessions } from './agent-sessions.js';
export type {
  ArchivedItemSummary,
  ArchivedResultRef,
  ArchivedToolResult,
  ArchiveReadOptions,
} from './session-archive-access.js';
export type { ChildAgentOptions } from './child-options.js';
export type { AgentToolOptions } from './agent-as-tool.js';
export type {
  AgentOptions,
  RunRequest,
  SendResult,
  Observability,
  Hooks,
  ModelRetryOptions,
} from './agent-options.js';
export type {
  AgentEvent,
  AgentEventType,
  SessionStartedEvent,
  ModelDeltaEvent,
  ModelCompletedEvent,
  SessionCompletedEvent,
  SessionFailedEvent,
  SteeringDeliveredEvent,
  BudgetWarningEvent,
  BudgetExhaustedEvent,
} from './events.js';
export type { WatchOptions, WatchedEvent, EventLogGap } from './session-watch.js';
export type { McpContextOptions } from './mcp-context.js';
export { DEFAULT_LIMITS } from './limits.js';
export type { Limits, BudgetExhaustedPolicy } from './limits.js';
export type { Pricing, ModelPrice } from './pricing.js';
export type { OutputOption, OutputRequest, OutputSchema, OutputValue } from './output/index.js';
export type { Wait, ApprovalWaitDecision } from '../session/index.js';
