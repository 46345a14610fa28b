/**
 * Reading the studio's event stream in the HTTP tests: an event's `StudioEvent`, the agent
 * event it carries, and a matcher for the approval a run's tool call waits on.
 */
import type { AgentEvent } from '../../src/agent/index.js';
import type { StudioEvent } from '../../src/studio/index.js';
import type { SseEvent } from './studio-client.js';

/** The `StudioEvent` an SSE event carries. */
export const eventData = (e: SseEvent): StudioEvent => e.data as StudioEvent;

/** The agent event an SSE event carries, if it is of kind `agent`. */
export const agentEventOf = (e: SseEvent): AgentEvent | undefined => {
  const d = eventData(e);
  return d.kind === 'agent' ? d.event : undefined;
};

/** Matches the `approval.pending` of run `sessionId`'s call of `tool`. */
export const pendingFor =
  (sessionId: string, tool: string) =>
  (e: SseEvent): boolean => {
    const d = eventData(e);
    return (
      d.kind === 'approval.pending' &&
      d.approval.request.sessionId === sessionId &&
      d.approval.request.toolName === tool
    );
  };
