import type { ParkedWait } from '../../../src/studio/api-types.js';
import { FormError } from '../form-error.js';
import { useAction } from '../use-action.js';
import { useRun } from '../use-run.js';
import { resumeSession } from '../wait-actions.js';

/** An ISO 8601 time as the page shows it (local time); `never` when absent. */
export function when(iso: string | undefined): string {
  if (iso === undefined) return 'never';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** `pending`, `expired` or `decided`: what a wait's card says it is. */
export function waitState(wait: ParkedWait): 'pending' | 'expired' | 'decided' {
  return wait.status === 'decided' ? 'decided' : wait.expired ? 'expired' : 'pending';
}

/** The facts of a parked run's wait: session, run, server, created and expiry times. */
export function WaitFacts({ wait }: { readonly wait: ParkedWait }) {
  return (
    <dl class="facts">
      {wait.server && (
        <>
          <dt>Server</dt>
          <dd data-testid="wait-server">{wait.server}</dd>
        </>
      )}
      <dt>Session</dt>
      <dd>
        <code data-testid="wait-session">{wait.sessionId}</code>
      </dd>
      <dt>Run</dt>
      <dd>
        <code>{wait.runId}</code>
      </dd>
      <dt>Parked</dt>
      <dd data-testid="wait-created">{when(wait.createdAt)}</dd>
      <dt>Expires</dt>
      <dd data-testid="wait-expires">{when(wait.expiresAt)}</dd>
      {wait.message && (
        <>
          <dt>Why</dt>
          <dd>{wait.message}</dd>
        </>
      )}
    </dl>
  );
}

function decisionText(wait: ParkedWait): string {
  const d = wait.decision;
  if (d === undefined) return 'expired: resuming decides it (denied, or cancelled)';
  const what = 'decision' in d ? d.decision : d.action;
  const why = 'message' in d && d.message ? d.message : d.reason;
  return why ? `${what}: ${why}` : what;
}

/**
 * The colour of a decision: an accepted form reads as allowed, a cancelled task as refused,
 * anything else as refused.
 */
function decisionClass(wait: ParkedWait): string {
  const d = wait.decision;
  if (d === undefined) return 'deny';
  if ('decision' in d) return d.decision === 'cancel' ? 'deny' : d.decision;
  return d.action === 'accept' ? 'allow' : 'deny';
}

/**
 * A wait that no longer asks a person (decided, or expired): what was decided, and Resume,
 * which continues the session's run in the studio (hidden while that run is live here).
 */
export function WaitResume({ wait }: { readonly wait: ParkedWait }) {
  const action = useAction();
  const run = useRun(wait.sessionId);
  const live = run?.status === 'running';
  return (
    <>
      <p>
        <span class={`decision decision-${decisionClass(wait)}`} data-testid="wait-decision">
          {decisionText(wait)}
        </span>
      </p>
      <FormError error={action.error} />
      <div class="toolbar">
        <button
          type="button"
          class="primary"
          data-testid="wait-resume"
          disabled={action.busy || live}
          onClick={() => void action.run(() => resumeSession(wait.sessionId))}
        >
          {live ? 'Resumed…' : 'Resume the run'}
        </button>
      </div>
    </>
  );
}
