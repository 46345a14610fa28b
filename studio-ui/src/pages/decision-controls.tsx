import { useState } from 'preact/hooks';
import { FormError } from '../form-error.js';
import type { Action } from '../use-action.js';

/** What a person answers an approval with: the message is the reason, or the redirect's instruction. */
export interface DecisionAnswer {
  readonly decision: 'allow' | 'deny' | 'redirect';
  readonly reason?: string;
  readonly message?: string;
}

/**
 * The message field and the Allow, Deny and Redirect buttons of an approval, for a call
 * waiting in this studio or a parked run's wait: a redirect needs a message (the instruction
 * the model gets instead), a deny or allow takes it as the reason. `testId` prefixes the
 * elements' test ids (`<testId>-message`, `-allow`, `-deny`, `-redirect`).
 */
export function DecisionControls({
  fieldId,
  testId,
  action,
  onDecide,
}: {
  readonly fieldId: string;
  readonly testId: string;
  readonly action: Action;
  readonly onDecide: (answer: DecisionAnswer) => void;
}) {
  const [message, setMessage] = useState('');
  const [messageError, setMessageError] = useState<string | undefined>(undefined);
  const answer = (decision: DecisionAnswer['decision']) => {
    const text = message.trim();
    if (decision === 'redirect' && text === '') {
      setMessageError('A redirect needs a message: the instruction the model gets instead.');
      return;
    }
    setMessageError(undefined);
    onDecide(
      decision === 'redirect'
        ? { decision, message: text }
        : text !== ''
          ? { decision, reason: text }
          : { decision },
    );
  };
  const button = (decision: DecisionAnswer['decision'], label: string, cls?: string) => (
    <button
      type="button"
      {...(cls ? { class: cls } : {})}
      data-testid={`${testId}-${decision}`}
      disabled={action.busy}
      onClick={() => answer(decision)}
    >
      {label}
    </button>
  );
  return (
    <>
      <div class={messageError ? 'field invalid' : 'field'}>
        <label for={fieldId}>Message (the instruction for redirect, the reason for deny)</label>
        <input
          id={fieldId}
          data-testid={`${testId}-message`}
          value={message}
          onInput={(e) => setMessage(e.currentTarget.value)}
        />
        {messageError && <small class="field-error">{messageError}</small>}
      </div>
      <FormError error={action.error} />
      <div class="toolbar">
        {button('allow', 'Allow', 'primary')}
        {button('deny', 'Deny', 'danger')}
        {button('redirect', 'Redirect')}
      </div>
    </>
  );
}
