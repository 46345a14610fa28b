import type { AuthorizationDecision, AuthorizationRequest } from './policy-types.js';

/**
 * A park, where the call can park (`canPark` is false when the store keeps no waits): a tool call, on a store that keeps waits. A connection or
 * a sampling request cannot (it is asked inside a call or a connect that holds no wait).
 */
export function parkOrDeny(
  request: AuthorizationRequest,
  canPark: boolean | undefined,
  by: string,
  reason?: string,
): AuthorizationDecision {
  if (request.kind !== 'tool')
    return {
      decision: 'deny',
      stage: 'approval',
      reason: `${by} answered park, but a ${request.kind === 'connection' ? 'connection (mcp_connect)' : 'sampling request (mcp_sampling)'} cannot park: decide it while the run waits`,
      code: 'TOOL_DENIED',
    };
  if (canPark === false)
    return {
      decision: 'deny',
      stage: 'approval',
      reason: `${by} answered park, but the session store keeps no waits (SessionStore.waits): use the memory, SQLite or PostgreSQL store, or answer allow or deny`,
      code: 'TOOL_APPROVAL_REQUIRED',
    };
  return { decision: 'park', stage: 'approval', reason: reason ?? `parked by ${by}` };
}
