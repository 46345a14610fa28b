import { useState } from 'preact/hooks';
import type { ParkedWait } from '../../../src/studio/api-types.js';
import { FormError } from '../form-error.js';
import { JsonView } from '../json-view.js';
import { useAction } from '../use-action.js';
import { decideWait, type WaitAnswer } from '../wait-actions.js';
import { WaitFacts, WaitResume, waitState } from './wait-parts.js';

/**
 * One approval a parked run waits on, from the store: the call's tool and exact arguments,
 * then Allow, Deny (the message is the reason) or Redirect (the message is the new
 * instruction); once decided (or expired), Resume.
 */
export function ParkedApprovalItem({ wait }: { readonly wait: ParkedWait }) {
  const [message, setMessage] = useState('');
  const [messageError, setMessageError] = useState<string | undefined>(undefined);
  const action = useAction();
  const state = waitState(wait);
  const tool = wait.toolName ?? wait.kind;
  const answer = (decision: 'allow' | 'deny' | 'redirect') => {
    const text = message.trim();
    if (decision === 'redirect' && text === '') {
      setMessageError('A redirect needs a message: the instruction the model gets instead.');
      return;
    }
    setMessageError(undefined);
    const body: WaitAnswer =
      decision === 'redirect'
        ? { decision, message: text }
        : text !== ''
          ? { decision, reason: text }
          : { decision };
    void action.run(() => decideWait(wait, body));
  };
  const field = `wait-message-${wait.sessionId}-${wait.id}`;
  return (
    <li
      class="card approval"
      data-testid="wait-item"
      data-id={wait.id}
      data-session={wait.sessionId}
      data-tool={tool}
      data-state={state}
    >
      <div class="result-head">
        <strong data-testid="wait-tool">{tool}</strong>
        <span class={`status status-${state}`} data-testid="wait-state">
          {state}
        </span>
      </div>
      <WaitFacts wait={wait} />
      <h4>Arguments</h4>
      <JsonView value={wait.arguments ?? {}} testId="wait-args" />
      {state === 'pending' ? (
        <>
          <div class={messageError ? 'field invalid' : 'field'}>
            <label for={field}>Message (the instruction for redirect, the reason for deny)</label>
            <input
              id={field}
              data-testid="wait-message"
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
              data-testid="wait-allow"
              disabled={action.busy}
              onClick={() => answer('allow')}
            >
              Allow
            </button>
            <button
              type="button"
              class="danger"
              data-testid="wait-deny"
              disabled={action.busy}
              onClick={() => answer('deny')}
            >
              Deny
            </button>
            <button
              type="button"
              data-testid="wait-redirect"
              disabled={action.busy}
              onClick={() => answer('redirect')}
            >
              Redirect
            </button>
          </div>
        </>
      ) : (
        <>
          <FormError error={action.error} />
          <WaitResume wait={wait} />
        </>
      )}
    </li>
  );
}
