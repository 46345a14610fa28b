import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type {
  FleetResponse,
  FleetSessionView,
  StudioEvent,
} from '../../../src/studio/api-types.js';
import { api } from '../api.js';
import { FormError } from '../form-error.js';
import { createPoller } from '../poller.js';
import { useAction } from '../use-action.js';
import { useStudioEvents } from '../use-studio.js';
import { when } from './wait-parts.js';

/**
 * Other processes (workers) announce nothing here: the view is read this long after the last
 * read ended (never two at once, and not while the page is hidden).
 */
const FLEET_POLL_MS = 3000;

const SECTIONS = [
  {
    state: 'running',
    title: 'Running',
    none: 'No run holds a session now.',
    about: 'A live lease holds the session: a process (a worker, this studio) runs it now.',
  },
  {
    state: 'queued',
    title: 'Queued',
    none: 'No job waits for a worker.',
    about: "A job of the workers' queue waits to start or resume the session.",
  },
  {
    state: 'parked',
    title: 'Parked',
    none: 'No session is parked.',
    about: 'The run waits on a decision, a task or a sign-in (see the Approvals page).',
  },
] as const;

function FleetItem({ session: s }: { readonly session: FleetSessionView }) {
  return (
    <li class="card" data-testid="fleet-item" data-session={s.sessionId} data-state={s.state}>
      <div class="result-head">
        <code data-testid="fleet-session">{s.sessionId}</code>
        <span class={`status status-${s.state}`} data-testid="fleet-state">
          {s.state}
        </span>
      </div>
      <dl class="facts">
        <dt>Stored status</dt>
        <dd data-testid="fleet-status">{s.status ?? 'not started (no session yet)'}</dd>
        {s.input !== undefined && (
          <>
            <dt>Input</dt>
            <dd data-testid="fleet-input">{s.input}</dd>
          </>
        )}
        {s.holder !== undefined && (
          <>
            <dt>Held by</dt>
            <dd>
              <code data-testid="fleet-holder">{s.holder}</code>
              {s.leaseExpiresAt !== undefined && ` (lease until ${when(s.leaseExpiresAt)})`}
            </dd>
          </>
        )}
        {s.pendingWaits !== undefined && (
          <>
            <dt>Waits on</dt>
            <dd data-testid="fleet-waits">
              {s.pendingWaits.length === 0
                ? 'nothing: decided, to be resumed'
                : s.pendingWaits.join(', ')}
            </dd>
          </>
        )}
        {s.job !== undefined && (
          <>
            <dt>Job</dt>
            <dd data-testid="fleet-job">
              {s.job.kind ?? 'job'}
              {s.job.why !== undefined && ` (${s.job.why})`} · {s.job.state}
              {Date.parse(s.job.startAfter) > Date.now() && ` · due ${when(s.job.startAfter)}`}
            </dd>
          </>
        )}
        {s.updatedAt !== undefined && (
          <>
            <dt>Updated</dt>
            <dd>{when(s.updatedAt)}</dd>
          </>
        )}
      </dl>
    </li>
  );
}

/**
 * `#/fleet`: where the store's sessions stand across processes (SPEC 15.5): running (who
 * holds the lease), queued (a worker's job waits for them) and parked (what they wait on).
 * Read every few seconds (one read at a time, none while the page is hidden) and when a run
 * here ends.
 */
export function FleetPage() {
  const [view, setView] = useState<FleetResponse | undefined>(undefined);
  const load = useAction();
  const poller = useMemo(
    () =>
      createPoller({
        load: () => load.run(async () => setView(await api.get<FleetResponse>('/api/fleet'))),
        intervalMs: FLEET_POLL_MS,
        hidden: () => document.hidden,
      }),
    [],
  );
  const refresh = useCallback(() => poller.refresh(), [poller]);
  useEffect(() => {
    const visibility = () => poller.visibilityChanged();
    document.addEventListener('visibilitychange', visibility);
    poller.start();
    return () => {
      poller.stop();
      document.removeEventListener('visibilitychange', visibility);
    };
  }, [poller]);
  useStudioEvents(
    useCallback(
      (event: StudioEvent) => {
        if (event.kind === 'run.ended' || event.kind === 'wait.decided') refresh();
      },
      [refresh],
    ),
  );
  const queue = view?.queue;
  return (
    <section data-testid="page-fleet">
      <div class="result-head">
        <h2>Fleet</h2>
        <button type="button" data-testid="fleet-refresh" onClick={refresh}>
          Refresh
        </button>
      </div>
      <p class="muted" data-testid="fleet-queue">
        {queue === undefined
          ? 'This store has no job queue: runs go on in the processes that start them.'
          : queue.found
            ? `Workers' queue '${queue.name}' in schema '${queue.schema}'.`
            : `No queue in schema '${queue.schema}' yet (no worker has used it): nothing is queued.`}
        {view?.truncated === true && ' Only the first 100 sessions of each state are listed.'}
      </p>
      <FormError error={load.error} />
      {SECTIONS.map((section) => {
        const sessions = (view?.sessions ?? []).filter((s) => s.state === section.state);
        return (
          <div key={section.state}>
            <h3>
              {section.title}{' '}
              <span class="count" data-testid={`fleet-count-${section.state}`}>
                {sessions.length}
              </span>
            </h3>
            <p class="muted">{section.about}</p>
            {view !== undefined && sessions.length === 0 && <p class="muted">{section.none}</p>}
            <ul class="cards" data-testid={`fleet-${section.state}`}>
              {sessions.map((s) => (
                <FleetItem key={s.sessionId} session={s} />
              ))}
            </ul>
          </div>
        );
      })}
    </section>
  );
}
