import { useState } from 'preact/hooks';
import type { ServersResponse, SignInResponse } from '../../../src/studio/api-types.js';
import { api, serverPath } from '../api.js';
import { FormError } from '../form-error.js';
import { safeUrl } from '../safe-url.js';
import { useAction } from '../use-action.js';
import { useStudio } from '../use-studio.js';

type Server = ServersResponse[number];

function SignInRow({ server }: { readonly server: Server }) {
  const [answer, setAnswer] = useState<SignInResponse | undefined>(undefined);
  const action = useAction();
  const link = safeUrl(answer?.authUrl);
  const start = () =>
    action.run(async () =>
      setAnswer(await api.post<SignInResponse>(serverPath(server.name, 'signin'))),
    );
  return (
    <tr data-testid="signin-row" data-server={server.name}>
      <td>
        <strong>{server.name}</strong>
        <div class="muted">{server.type}</div>
      </td>
      <td>
        <span class={`status status-${server.status}`} data-testid="signin-status">
          {server.status}
        </span>
        {server.error && <div class="muted">{server.error.code}</div>}
      </td>
      <td>
        <button
          type="button"
          class={server.status === 'needs-auth' ? 'primary' : ''}
          data-testid="signin-start"
          disabled={action.busy}
          onClick={start}
        >
          Sign in
        </button>
      </td>
      <td>
        {link && (
          <a data-testid="signin-link" href={link} target="_blank" rel="noopener noreferrer">
            Open the sign-in page
          </a>
        )}
        {answer && !answer.authUrl && !answer.requiresUserAction && (
          <span class="muted">Signed in, no page needed.</span>
        )}
        <FormError error={action.error} />
      </td>
    </tr>
  );
}

const remote = (server: Server) => server.type === 'http' || server.type === 'sse';

/** `#/signin`: OAuth for the remote servers, the ones that need it first. */
export function SignInPage() {
  const { servers = [] } = useStudio();
  const rows = servers
    .filter(remote)
    .sort((a, b) => Number(b.status === 'needs-auth') - Number(a.status === 'needs-auth'));
  return (
    <section data-testid="page-signin">
      <h2>Sign-in</h2>
      <p class="muted">
        The link opens the server's authorization page in a new tab; it comes back to this studio's
        own <code>/oauth/callback</code>.
      </p>
      {rows.length === 0 ? (
        <p class="muted">No remote servers.</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>Server</th>
              <th>Status</th>
              <th />
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((server) => (
              <SignInRow key={server.name} server={server} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
