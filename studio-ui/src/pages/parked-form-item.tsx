import type { ParkedWait } from '../../../src/studio/api-types.js';
import { FormError } from '../form-error.js';
import { safeUrl } from '../safe-url.js';
import { SchemaForm, useSchemaForm } from '../schema-form.js';
import { useAction } from '../use-action.js';
import { decideWait, type WaitAnswer } from '../wait-actions.js';
import { WaitFacts, WaitResume, waitState } from './wait-parts.js';

/**
 * One server question a parked run waits on, from the store: the form of its
 * `requestedSchema` (or its URL, as a link), answered with Submit, Decline or Cancel; once
 * answered (or expired), Resume.
 */
export function ParkedFormItem({ wait }: { readonly wait: ParkedWait }) {
  const form = useSchemaForm(wait.requestedSchema);
  const action = useAction();
  const state = waitState(wait);
  const send = (answer: WaitAnswer) => void action.run(() => decideWait(wait, answer));
  const submit = (event: Event) => {
    event.preventDefault();
    if (wait.url !== undefined) return send({ action: 'accept' });
    const content = form.submit();
    if (content) send({ action: 'accept', content });
  };
  const link = safeUrl(wait.url);
  return (
    <li
      class="card"
      data-testid="wait-item"
      data-id={wait.id}
      data-session={wait.sessionId}
      data-state={state}
    >
      <div class="result-head">
        <strong>{wait.server ?? wait.toolName ?? 'a server'}</strong>
        <span class={`status status-${state}`} data-testid="wait-state">
          {state}
        </span>
      </div>
      <WaitFacts wait={wait} />
      {state !== 'pending' ? (
        <>
          <FormError error={action.error} />
          <WaitResume wait={wait} />
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          {wait.url !== undefined ? (
            <p>
              Open this page yourself if you trust it (the studio never opens it):{' '}
              {link ? (
                <a data-testid="wait-link" href={link} target="_blank" rel="noopener noreferrer">
                  {link}
                </a>
              ) : (
                <code>{wait.url}</code>
              )}
            </p>
          ) : (
            <SchemaForm form={form} />
          )}
          <FormError error={action.error} />
          <div class="toolbar">
            <button
              type="submit"
              class="primary"
              data-testid="wait-form-submit"
              disabled={action.busy}
            >
              {wait.url !== undefined ? 'Accept' : 'Submit'}
            </button>
            <button
              type="button"
              data-testid="wait-form-decline"
              disabled={action.busy}
              onClick={() => send({ action: 'decline' })}
            >
              Decline
            </button>
            <button
              type="button"
              data-testid="wait-form-cancel"
              disabled={action.busy}
              onClick={() => send({ action: 'cancel' })}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
    </li>
  );
}
