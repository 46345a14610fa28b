import { useEffect, useRef } from 'preact/hooks';
import type { ConnectionSummary } from '../../../src/policy/policy-types.js';
import type { ApprovalAnswerBody, PendingApproval } from '../../../src/studio/api-types.js';
import { api } from '../api.js';
import { JsonView } from '../json-view.js';
import { useRouteDetail } from '../router.js';
import { studioStore } from '../studio-store.js';
import { useAction } from '../use-action.js';
import { useStudio } from '../use-studio.js';
import { DecisionControls } from './decision-controls.js';
import { ParkedApprovalItem } from './parked-approval-item.js';
import { ParkedSignInItem } from './parked-signin-item.js';
import { ParkedTaskItem } from './parked-task-item.js';
import { ResumedRuns } from './resumed-runs.js';

const SOURCES: Readonly<Record<string, string>> = {
  project: 'the project file',
  user: 'the user file',
  options: "the agent's options",
  runtime: 'a registration at run time',
};

/** A list of names (env variables, headers): the values are never sent to the page. */
function Names({ names }: { readonly names: readonly string[] }) {
  return (
    <>
      <code>{names.join(', ')}</code> <span class="muted">(names only)</span>
    </>
  );
}

/** What a connection will run or reach: command and args as declared, names of env/headers. */
function ConnectionFacts({ connection: c }: { readonly connection: ConnectionSummary }) {
  return (
    <dl class="facts" data-testid="approval-connection">
      <dt>Transport</dt>
      <dd>{c.transport}</dd>
      <dt>Declared in</dt>
      <dd>{SOURCES[c.configSource] ?? c.configSource}</dd>
      {c.sandbox && (
        <>
          <dt>Sandbox</dt>
          <dd>
            <code>{[c.sandbox.command, ...(c.sandbox.args ?? [])].join(' ')}</code>
          </dd>
        </>
      )}
      {c.command !== undefined && (
        <>
          <dt>Command</dt>
          <dd>
            <code data-testid="approval-command">{c.command}</code>
          </dd>
        </>
      )}
      {c.args !== undefined && (
        <>
          <dt>Command arguments</dt>
          <dd>
            <code data-testid="approval-command-args">{JSON.stringify(c.args)}</code>
          </dd>
        </>
      )}
      {c.cwd !== undefined && (
        <>
          <dt>Working directory</dt>
          <dd>
            <code>{c.cwd}</code>
          </dd>
        </>
      )}
      {c.envKeys && c.envKeys.length > 0 && (
        <>
          <dt>Environment</dt>
          <dd>
            <Names names={c.envKeys} />
          </dd>
        </>
      )}
      {c.url !== undefined && (
        <>
          <dt>URL</dt>
          <dd>
            <code>{c.url}</code>
          </dd>
        </>
      )}
      {c.headerNames && c.headerNames.length > 0 && (
        <>
          <dt>Headers</dt>
          <dd>
            <Names names={c.headerNames} />
          </dd>
        </>
      )}
      {c.auth !== undefined && (
        <>
          <dt>Authentication</dt>
          <dd>{c.auth}</dd>
        </>
      )}
    </dl>
  );
}

function ApprovalItem({
  approval,
  linked,
}: {
  readonly approval: PendingApproval;
  /** Opened from a link to this approval (the Tools page's): shown and marked. */
  readonly linked: boolean;
}) {
  const { request } = approval;
  const action = useAction();
  const item = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (linked) item.current?.scrollIntoView({ block: 'nearest' });
  }, [linked]);
  const tool = request.toolName ?? request.capability;
  // a call an MCP Apps view made (the studio marks it), not one a person typed
  const fromView = request.metadata?.['via'] === 'mcp-app-view';
  const decide = (body: ApprovalAnswerBody) =>
    void action.run(async () => {
      await api.post(`/api/approvals/${encodeURIComponent(approval.id)}`, body);
      studioStore.forget('approval', approval.id);
    });
  return (
    <li
      ref={item}
      class={linked ? 'card approval linked' : 'card approval'}
      data-testid="approval-item"
      data-id={approval.id}
      data-tool={tool}
      aria-current={linked ? 'true' : undefined}
    >
      <div class="result-head">
        <strong data-testid="approval-tool">{tool}</strong>
        {fromView && (
          <span class="decision decision-redirect" data-testid="approval-via-view">
            asked by an MCP Apps view of {request.server ?? 'its server'}
          </span>
        )}
        <span class="muted">{new Date(approval.createdAt).toLocaleTimeString()}</span>
      </div>
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{request.kind}</dd>
        {request.server && (
          <>
            <dt>Server</dt>
            <dd>{request.server}</dd>
          </>
        )}
        {request.originalName && (
          <>
            <dt>Name on server</dt>
            <dd>{request.originalName}</dd>
          </>
        )}
        {request.source && (
          <>
            <dt>Source</dt>
            <dd>{request.source}</dd>
          </>
        )}
        <dt>Session</dt>
        <dd>
          <code>{request.sessionId}</code>
        </dd>
      </dl>
      {request.connection && (
        <>
          <h4>What connecting runs</h4>
          <ConnectionFacts connection={request.connection} />
        </>
      )}
      <h4>Annotations</h4>
      <JsonView value={request.annotations ?? {}} />
      <h4>Arguments</h4>
      <JsonView value={request.arguments ?? {}} testId="approval-args" />
      <DecisionControls
        fieldId={`approval-message-${approval.id}`}
        testId="approval"
        action={action}
        onDecide={decide}
      />
    </li>
  );
}

/**
 * `#/approvals`: the calls waiting for a person in this studio, then the approvals parked
 * runs wait on in the store (whichever process parked them), the MCP tasks and sign-ins runs
 * wait on, and the runs resumed from here.
 * `#/approvals/<id>` (the Tools page's link to the approval its call waits on) marks that one.
 */
export function ApprovalsPage() {
  const { approvals, waits } = useStudio();
  const linked = useRouteDetail();
  const parked = waits.filter((w) => w.kind === 'approval');
  const tasks = waits.filter((w) => w.kind === 'task');
  const signIns = waits.filter((w) => w.kind === 'auth');
  return (
    <section data-testid="page-approvals">
      <h2>Approvals</h2>
      {approvals.length === 0 && <p class="muted">No call is waiting.</p>}
      {linked !== undefined && !approvals.some((a) => a.id === linked) && (
        <p class="muted" data-testid="approval-gone">
          The approval you followed is no longer waiting: it was answered, or its call ended.
        </p>
      )}
      <ul class="cards">
        {approvals.map((approval) => (
          <ApprovalItem key={approval.id} approval={approval} linked={approval.id === linked} />
        ))}
      </ul>
      <h3>Parked runs</h3>
      <p class="muted">
        Runs that parked on an approval, in this studio or another process with the same store:
        decide the call, then resume the run here.
      </p>
      {parked.length === 0 && <p class="muted">No parked run waits on an approval.</p>}
      <ul class="cards" data-testid="parked-approvals">
        {parked.map((wait) => (
          <ParkedApprovalItem key={`${wait.sessionId}/${wait.id}`} wait={wait} />
        ))}
      </ul>
      <h3>MCP tasks</h3>
      <p class="muted">
        Calls that became long-running tasks on their server: the task as last polled. A resume
        polls it again; cancelling it sends the server one tasks/cancel.
      </p>
      {tasks.length === 0 && <p class="muted">No run waits on a task.</p>}
      <ul class="cards" data-testid="task-waits">
        {tasks.map((wait) => (
          <ParkedTaskItem key={`${wait.sessionId}/${wait.id}`} wait={wait} />
        ))}
      </ul>
      <h3>Sign-ins</h3>
      {signIns.length === 0 && <p class="muted">No run waits for a sign-in.</p>}
      <ul class="cards" data-testid="signin-waits">
        {signIns.map((wait) => (
          <ParkedSignInItem key={`${wait.sessionId}/${wait.id}`} wait={wait} />
        ))}
      </ul>
      <ResumedRuns />
    </section>
  );
}
