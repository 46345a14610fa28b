import type { ExecutorRunContext } from '../tools/index.js';
import type { AgentScope } from './agent-scope.js';
import type { AgentEvent } from './events.js';

/**
 * A context for work outside any run (initialize, registry changes, connects): the agent's
 * close signal, authorization through `scope.authorize`, events named after the operation.
 */
export function outsideRunContext(
  scope: Pick<AgentScope, 'closeSignal' | 'authorize'>,
  operation: string,
  emit: (ev: AgentEvent) => void,
): ExecutorRunContext {
  const signal = scope.closeSignal;
  return {
    sessionId: '',
    runId: operation,
    signal,
    emit: (ev) => emit({ ...ev, runId: operation } as AgentEvent),
    authorize: (req) => scope.authorize(req, signal),
  };
}
