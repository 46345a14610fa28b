import type {
  DecideWaitBody,
  DecideWaitResponse,
  ParkedWait,
  ResumeRunResponse,
} from '../../src/studio/api-types.js';
import { api, ApiError } from './api.js';
import { resumedSessions } from './resumed-sessions.js';
import { runStore } from './run-store.js';
import { studioStore } from './studio-store.js';

/** A decision as the pages take it: the fingerprint is the listed wait's own. */
export type WaitAnswer = DistributiveOmit<DecideWaitBody, 'fingerprint'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Codes after which the listed wait is not the stored one: the list is read again. */
const OUTDATED = new Set(['WAIT_STALE', 'WAIT_NOT_FOUND']);

/**
 * Decides a parked run's wait (`POST /api/waits/:sessionId/:waitId`) bound to the
 * fingerprint the page shows, so a call that changed since is refused (`WAIT_STALE`), never
 * approved unseen. On success the wait shows as decided; on `WAIT_STALE` or `WAIT_NOT_FOUND`
 * the list is read again (the card then shows the wait as stored) and the error is thrown.
 */
export async function decideWait(wait: ParkedWait, answer: WaitAnswer): Promise<ParkedWait> {
  const body: DecideWaitBody = { ...answer, fingerprint: wait.fingerprint };
  const path = `/api/waits/${encodeURIComponent(wait.sessionId)}/${encodeURIComponent(wait.id)}`;
  try {
    const decided = await api.post<DecideWaitResponse>(path, body);
    studioStore.putWait(decided.wait);
    return decided.wait;
  } catch (error) {
    if (error instanceof ApiError && OUTDATED.has(error.code)) void studioStore.refreshWaits();
    throw error;
  }
}

/**
 * Resumes a parked session in the studio (`POST /api/runs/:sessionId/resume`): its run is
 * followed like a run started on the Runs page, and listed under the waits as resumed.
 */
export async function resumeSession(sessionId: string): Promise<void> {
  await api.post<ResumeRunResponse>(`/api/runs/${encodeURIComponent(sessionId)}/resume`);
  runStore.begin(sessionId);
  runStore.focused = sessionId;
  resumedSessions.add(sessionId);
}

/**
 * Cancels the MCP task a parked run waits on (SPEC 15.3): decides its task wait `cancel`,
 * bound to the listed fingerprint, then resumes the session here; the resumed run sends the
 * task's `tasks/cancel` once and its call ends `TOOL_OUTCOME_UNKNOWN`. When the resume is
 * refused (the studio has no model; another process resumed it first), the decision stands
 * and whoever resumes the session cancels the task: the error is thrown for the card.
 */
export async function cancelTask(wait: ParkedWait): Promise<void> {
  await decideWait(wait, { decision: 'cancel', reason: 'cancelled from the studio' });
  await resumeSession(wait.sessionId);
}
