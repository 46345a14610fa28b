import { useState } from 'preact/hooks';
import type { ApprovalAnswerBody, PendingApproval } from '../../../src/studio/api-types.js';
import { api } from '../api.js';
import { FormError } from '../form-error.js';
import { JsonView } from '../json-view.js';
import { studioStore } from '../studio-store.js';
import { useAction } from '../use-action.js';
import { useStudio } from '../use-studio.js';

function ApprovalItem({ approval }: { readonly approval: PendingApproval }) {
  const { request } = approval;
  const [message, setMessage] = useState('');
  const [messageError, setMessageError] = useState<string | undefined>(undefined);
  const action = useAction();
  const tool = request.toolName ?? request.capability;
  const answer = (decision: ApprovalAnswerBody['decision']) => {
    const text = message.trim();
    if (decision === 'redirect' && text === '') {
      setMessageError('A redirect needs a message: the instruction the model gets instead.');
      return;
    }
    setMessageError(undefined);
    const body: ApprovalAnswerBody =
      decision === 'redirect'
        ? { decision, message: text }
        : text !== ''
          ? { decision, reason: text }
          : { decision };
    void action.run(async () => {
      await api.post(`/api/approvals/${encodeURIComponent(approval.id)}`, body);
      studioStore.forget('approval', approval.id);
    });
  };
  return (
    <li class="card approval" data-testid="approval-item" data-id={approval.id} data-tool={tool}>
      <div class="result-head">
        <strong data-testid="approval-tool">{tool}</strong>
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
      <h4>Annotations</h4>
      <JsonView value={request.annotations ?? {}} />
      <h4>Arguments</h4>
      <JsonView value={request.arguments ?? {}} testId="approval-args" />
      <div class={messageError ? 'field invalid' : 'field'}>
        <label for={`approval-message-${approval.id}`}>
          Message (the instruction for redirect, the reason for deny)
        </label>
        <input
          id={`approval-message-${approval.id}`}
          data-testid="approval-message"
          value={message}
          onInput={(e) => setMessage(e.currentTarget.value)}
        />
        {messageError && <small class="field-error">{messageError}</small>}
      </div>
      <FormError error={action.error} />
      <div class="toolbar">
        <button
          type="button"
          class="primary"
          data-testid="approval-allow"
          disabled={action.busy}
          onClick={() => answer('allow')}
        >
          Allow
        </button>
        <button
          type="button"
          class="danger"
          data-testid="approval-deny"
          disabled={action.busy}
          onClick={() => answer('deny')}
        >
          Deny
        </button>
        <button
          type="button"
          data-testid="approval-redirect"
          disabled={action.busy}
          onClick={() => answer('redirect')}
        >
          Redirect
        </button>
      </div>
    </li>
  );
}

/** `#/approvals`: the calls waiting for a person, with their exact arguments. */
export function ApprovalsPage() {
  const { approvals } = useStudio();
  return (
    <section data-testid="page-approvals">
      <h2>Approvals</h2>
      {approvals.length === 0 && <p class="muted">No call is waiting.</p>}
      <ul class="cards">
        {approvals.map((approval) => (
          <ApprovalItem key={approval.id} approval={approval} />
        ))}
      </ul>
    </section>
  );
}
