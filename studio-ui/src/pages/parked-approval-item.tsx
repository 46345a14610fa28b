import type { ParkedWait } from '../../../src/studio/api-types.js';
import { FormError } from '../form-error.js';
import { JsonView } from '../json-view.js';
import { DecisionControls } from './decision-controls.js';
import { useAction } from '../use-action.js';
import { decideWait, type WaitAnswer } from '../wait-actions.js';
import { WaitFacts, WaitResume, waitState } from './wait-parts.js';

/**
 * One approval a parked run waits on, from the store: the call's tool and exact arguments,
 * then Allow, Deny (the message is the reason) or Redirect (the message is the new
 * instruction); once decided (or expired), Resume.
 */
export function ParkedApprovalItem({ wait }: { readonly wait: ParkedWait }) {
  const action = useAction();
  const state = waitState(wait);
  const tool = wait.toolName ?? wait.kind;
  const decide = (body: WaitAnswer) => void action.run(() => decideWait(wait, body));
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
        <DecisionControls
          fieldId={`wait-message-${wait.sessionId}-${wait.id}`}
          testId="wait"
          action={action}
          onDecide={decide}
        />
      ) : (
        <>
          <FormError error={action.error} />
          <WaitResume wait={wait} />
        </>
      )}
    </li>
  );
}
