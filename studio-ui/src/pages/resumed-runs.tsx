import { useEffect, useState } from 'preact/hooks';
import { resumedSessions } from '../resumed-sessions.js';
import { runStore } from '../run-store.js';
import { useRun } from '../use-run.js';

function ResumedRun({ sessionId }: { readonly sessionId: string }) {
  const run = useRun(sessionId);
  const status = run?.status ?? 'running';
  return (
    <li class="card" data-testid="resumed-run" data-session={sessionId}>
      <div class="result-head">
        <span>
          Session <code>{sessionId}</code>
        </span>
        <span class={`status status-${status}`} data-testid="resumed-run-status">
          {status}
        </span>
      </div>
      {run?.error && (
        <div class="form-error" data-testid="form-error">
          <strong>{run.error.code}</strong>: {run.error.message}
        </div>
      )}
      {run && run.text !== '' && (
        <pre class="run-text" data-testid="resumed-run-text">
          {run.text}
        </pre>
      )}
      <a
        href="#/runs"
        data-testid="resumed-run-open"
        onClick={() => {
          runStore.focused = sessionId;
        }}
      >
        Its timeline on the Runs page
      </a>
    </li>
  );
}

/** The sessions resumed from this page's waits, each with its run's status and text. */
export function ResumedRuns() {
  const [ids, setIds] = useState(resumedSessions.list());
  useEffect(() => {
    setIds(resumedSessions.list());
    return resumedSessions.subscribe(() => setIds(resumedSessions.list()));
  }, []);
  if (ids.length === 0) return null;
  return (
    <>
      <h3>Resumed</h3>
      <ul class="cards" data-testid="resumed-runs">
        {ids.map((id) => (
          <ResumedRun key={id} sessionId={id} />
        ))}
      </ul>
    </>
  );
}
