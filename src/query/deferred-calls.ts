import { isDeepStrictEqual } from 'node:util';
import type { Agent } from '../agent/index.js';
import { MusterError } from '../errors/index.js';
import type { ApprovalWaitDecision, Wait } from '../agent/index.js';
import type { PermissionBridge } from './query-permissions.js';

/** What {@link decideDeferredCalls} found. */
export interface DeferredDecisions {
  /** `canUseTool` denied a call with `interrupt: true`: the continued turn is interrupted. */
  readonly interrupt: boolean;
}

/**
 * Before a query continues a parked session (SPEC 15.1; the reference SDKs' resume after
 * `defer`): `canUseTool` is asked again about each call parked on a pending approval wait,
 * and its answer decides the wait (`allow`, `deny`, or `defer` again, which leaves it
 * pending). An `allow` whose `updatedInput` changes the arguments denies the call: an
 * approval is bound to the arguments it was asked about (the wait's fingerprint). Waits
 * decided elsewhere (`agent.decide()`, `muster decide`) or expired are not asked about, and
 * neither are they asked about again when the resumed run reaches their calls. A wait that
 * another process decides meanwhile keeps that decision. Without `canUseTool` nothing is
 * asked: the waits must be decided elsewhere.
 */
export async function decideDeferredCalls(
  agent: Agent,
  sessionId: string,
  bridge: PermissionBridge,
  signal: AbortSignal,
  principal?: string,
): Promise<DeferredDecisions> {
  let interrupt = false;
  for (const wait of await sessionWaits(agent, sessionId)) {
    if (wait.kind !== 'approval' || wait.callId === undefined || wait.toolName === undefined)
      continue;
    // another principal's wait is never shown to this query's canUseTool: the resume that
    // follows is refused (PRINCIPAL_MISMATCH)
    if (wait.principal !== principal) continue;
    const expired = wait.expiresAt !== undefined && Date.parse(wait.expiresAt) <= Date.now();
    if (wait.status === 'decided' || expired) {
      bridge.skip(wait.callId);
      continue;
    }
    const args = wait.arguments ?? {};
    const verdict = await bridge.askAgain(
      { toolName: wait.toolName, callId: wait.callId, arguments: args },
      signal,
    );
    if (verdict === undefined || verdict.behavior === 'defer') continue;
    let decision: ApprovalWaitDecision;
    if (verdict.behavior === 'deny') {
      decision = { decision: 'deny', reason: verdict.message || 'canUseTool denied the call' };
      interrupt ||= verdict.interrupt === true;
    } else if (verdict.updatedInput && !isDeepStrictEqual(verdict.updatedInput, args)) {
      decision = {
        decision: 'deny',
        reason:
          'canUseTool allowed a deferred call with another input: an approval is bound to the arguments it was asked about',
      };
    } else decision = { decision: 'allow', reason: 'canUseTool allowed the call' };
    try {
      await agent.decide(sessionId, wait.id, decision, {
        fingerprint: wait.fingerprint,
        ...(principal !== undefined ? { principal } : {}),
      });
    } catch (err) {
      // decided (or changed) by another process meanwhile: that decision stands
      if (
        !MusterError.isInstance(err) ||
        (err.code !== 'WAIT_NOT_FOUND' && err.code !== 'WAIT_STALE')
      )
        throw err;
    }
    bridge.skip(wait.callId);
  }
  return { interrupt };
}

async function sessionWaits(agent: Agent, sessionId: string): Promise<Wait[]> {
  const all: Wait[] = [];
  let cursor: string | undefined;
  do {
    const page = await agent.sessions.waits({
      sessionId,
      ...(cursor === undefined ? {} : { cursor }),
    });
    all.push(...page.waits);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return all;
}
