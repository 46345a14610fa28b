import { ZERO_USAGE } from '../model/index.js';
import type { SendResult } from './agent-options.js';
import type { AgentEvent } from './events.js';

/** What `send()` resolves with, from the events of its run (in order). */
export function sendResult(events: readonly AgentEvent[]): SendResult {
  const started = events.find((e) => e.type === 'session.started');
  const done = events.find((e) => e.type === 'session.completed' && e.runId === started?.runId);
  const parked = events.findLast((e) => e.type === 'session.parked');
  return {
    status: parked && !done ? 'parked' : 'completed',
    ...(parked?.type === 'session.parked' && !done ? { waits: parked.waits } : {}),
    text: done?.type === 'session.completed' ? done.content : '',
    ...(done?.type === 'session.completed' && done.output !== undefined
      ? { output: done.output }
      : {}),
    sessionId: started?.sessionId ?? parked?.sessionId ?? '',
    usage: done?.type === 'session.completed' ? done.usage : ZERO_USAGE,
    events,
  };
}
