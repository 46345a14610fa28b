import type { ParkedWait } from '../../../src/studio/api-types.js';
import { WaitFacts, WaitResume, waitState } from './wait-parts.js';

/**
 * One sign-in a run waits on (an `auth` wait, SPEC 15.4): whom it is for (the principal's id,
 * or the local user), the server and its authorization server. No URL or token is stored:
 * the host signs the principal in (`agent.mcp.authenticate(server, { principal })`, then
 * `submitOAuthCallback`), which decides the wait; then the run can resume.
 */
export function ParkedSignInItem({ wait }: { readonly wait: ParkedWait }) {
  const state = waitState(wait);
  const server = wait.server ?? 'its server';
  return (
    <li
      class="card approval"
      data-testid="signin-wait-item"
      data-id={wait.id}
      data-session={wait.sessionId}
      data-state={state}
    >
      <div class="result-head">
        <strong>
          Sign-in to <span data-testid="signin-wait-server">{server}</span> for{' '}
          <code data-testid="signin-wait-principal">{wait.principal ?? 'the local user'}</code>
        </strong>
        <span class={`status status-${state}`} data-testid="wait-state">
          {state}
        </span>
      </div>
      <dl class="facts">
        <dt>Principal</dt>
        <dd>{wait.principal ?? 'none (the local user)'}</dd>
        {wait.issuer !== undefined && (
          <>
            <dt>Authorization server</dt>
            <dd>
              <code data-testid="signin-wait-issuer">{wait.issuer}</code>
            </dd>
          </>
        )}
      </dl>
      <WaitFacts wait={wait} />
      {state === 'pending' ? (
        <p class="muted" data-testid="signin-wait-how">
          The host signs this principal in with agent.mcp.authenticate('{server}', {'{'} principal{' '}
          {'}'}) and submitOAuthCallback, which decides the wait; then the run resumes.
        </p>
      ) : (
        <WaitResume wait={wait} />
      )}
    </li>
  );
}
