import type { ElicitationAnswerBody, PendingElicitation } from '../../../src/studio/api-types.js';
import { api } from '../api.js';
import { FormError } from '../form-error.js';
import { safeUrl } from '../safe-url.js';
import { SchemaForm, useSchemaForm } from '../schema-form.js';
import { studioStore } from '../studio-store.js';
import { useAction } from '../use-action.js';
import { useStudio } from '../use-studio.js';
import { ParkedFormItem } from './parked-form-item.js';
import { ResumedRuns } from './resumed-runs.js';

function ElicitationItem({ elicitation }: { readonly elicitation: PendingElicitation }) {
  const form = useSchemaForm(elicitation.requestedSchema);
  const action = useAction();
  const send = (body: ElicitationAnswerBody) =>
    action.run(async () => {
      await api.post(`/api/elicitations/${encodeURIComponent(elicitation.id)}`, body);
      studioStore.forget('elicitation', elicitation.id);
    });
  const submit = (event: Event) => {
    event.preventDefault();
    if (elicitation.mode === 'url') {
      void send({ action: 'accept' });
      return;
    }
    const content = form.submit();
    if (content) void send({ action: 'accept', content });
  };
  const link = safeUrl(elicitation.url);
  return (
    <li class="card" data-testid="elicitation-item" data-id={elicitation.id}>
      <form onSubmit={submit} noValidate>
        <div class="result-head">
          <strong>{elicitation.server}</strong>
          <span class="tag">{elicitation.mode}</span>
          <span class="muted">{new Date(elicitation.createdAt).toLocaleTimeString()}</span>
        </div>
        <p class="elicitation-message" data-testid="elicitation-message">
          {elicitation.message}
        </p>
        {elicitation.mode === 'url' ? (
          <p>
            Open this page yourself if you trust it (the studio never opens it):{' '}
            {link ? (
              <a
                data-testid="elicitation-link"
                href={link}
                target="_blank"
                rel="noopener noreferrer"
              >
                {link}
              </a>
            ) : (
              <code>{elicitation.url ?? '(no URL)'}</code>
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
            data-testid="elicitation-submit"
            disabled={action.busy}
          >
            {elicitation.mode === 'url' ? 'Accept' : 'Submit'}
          </button>
          <button
            type="button"
            data-testid="elicitation-decline"
            disabled={action.busy}
            onClick={() => send({ action: 'decline' })}
          >
            Decline
          </button>
          <button
            type="button"
            data-testid="elicitation-cancel"
            disabled={action.busy}
            onClick={() => send({ action: 'cancel' })}
          >
            Cancel
          </button>
        </div>
      </form>
    </li>
  );
}

/**
 * `#/elicitations`: the servers' questions waiting for a person in this studio, then the forms
 * parked runs wait on in the store (whichever process parked them).
 */
export function ElicitationsPage() {
  const { elicitations, waits } = useStudio();
  const parked = waits.filter((w) => w.kind === 'elicitation');
  return (
    <section data-testid="page-elicitations">
      <h2>Elicitations</h2>
      {elicitations.length === 0 && <p class="muted">No question is waiting.</p>}
      <ul class="cards">
        {elicitations.map((elicitation) => (
          <ElicitationItem key={elicitation.id} elicitation={elicitation} />
        ))}
      </ul>
      <h3>Parked runs</h3>
      {parked.length === 0 && <p class="muted">No parked run waits on a form.</p>}
      <ul class="cards" data-testid="parked-forms">
        {parked.map((wait) => (
          <ParkedFormItem key={`${wait.sessionId}/${wait.id}`} wait={wait} />
        ))}
      </ul>
      <ResumedRuns />
    </section>
  );
}
