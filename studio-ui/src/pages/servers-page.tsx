import { useEffect, useState } from 'preact/hooks';
import type { ServerDiagnosticsResponse, ServersResponse } from '../../../src/studio/api-types.js';
import { api, ApiError, serverPath } from '../api.js';
import { FormError } from '../form-error.js';
import { studioStore } from '../studio-store.js';
import { useAction } from '../use-action.js';
import { useStudio } from '../use-studio.js';

type McpServerStatus = ServersResponse[number];

const EXAMPLE =
  '{\n  "type": "stdio",\n  "command": "npx",\n  "args": ["-y", "some-mcp-server"]\n}';

/**
 * The redacted stderr tail of a failed stdio server's process, fetched when the row shows a
 * failure (again when the error changes): why a server that crashed at start failed.
 */
function ServerStderr({ server }: { readonly server: McpServerStatus }) {
  const [tail, setTail] = useState<string>('');
  const failed = server.type === 'stdio' && server.status === 'failed';
  const errorKey = server.error ? `${server.error.code} ${server.error.message}` : '';
  useEffect(() => {
    setTail('');
    if (!failed) return;
    let live = true;
    api
      .get<ServerDiagnosticsResponse>(serverPath(server.name, 'diagnostics'))
      .then((d) => {
        if (live && d.exit !== undefined) setTail(d.stderrTail.trim());
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [server.name, failed, errorKey]);
  if (tail === '') return null;
  return (
    <details class="server-stderr" data-testid="server-stderr" open>
      <summary>stderr (redacted)</summary>
      <pre>{tail}</pre>
    </details>
  );
}

function ServerRow({ server }: { readonly server: McpServerStatus }) {
  const action = useAction();
  const reconnect = () =>
    action.run(async () => {
      await api.post(serverPath(server.name, 'reconnect'));
      await studioStore.refreshServers();
    });
  const unregister = () =>
    action.run(async () => {
      await api.delete(serverPath(server.name));
      await studioStore.refreshServers();
    });
  return (
    <tr data-testid="server-row" data-server={server.name}>
      <td>
        <strong>{server.name}</strong>
        <div class="muted">
          {server.type} · {server.source}
        </div>
      </td>
      <td>
        <span class={`status status-${server.status}`} data-testid="server-status">
          {server.status}
        </span>
      </td>
      <td>
        {server.era ?? '–'}
        {server.protocolVersion && <div class="muted">{server.protocolVersion}</div>}
      </td>
      <td>{server.tools.length}</td>
      <td>
        {server.error && (
          <div class="server-error" data-testid="server-error">
            {/* the stderr the library points to is shown below, on this page */}
            <code>{server.error.code}</code>{' '}
            {server.error.message.replace(/; its stderr is in diagnostics\('[^']*'\)/, '')}
          </div>
        )}
        <ServerStderr server={server} />
        <FormError error={action.error} />
      </td>
      <td class="actions">
        <button
          type="button"
          data-testid="server-reconnect"
          disabled={action.busy}
          onClick={reconnect}
        >
          Reconnect
        </button>
        <button
          type="button"
          class="danger"
          data-testid="server-unregister"
          disabled={action.busy}
          onClick={unregister}
        >
          Unregister
        </button>
      </td>
    </tr>
  );
}

function RegisterForm() {
  const [name, setName] = useState('');
  const [config, setConfig] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(config);
      } catch (error) {
        throw new ApiError(
          'INVALID_JSON',
          `The configuration is not JSON: ${(error as Error).message}`,
        );
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new ApiError('INVALID_JSON', 'The configuration must be a JSON object.');
      }
      await api.post('/api/servers', { name: name.trim(), config: parsed });
      setName('');
      setConfig('');
      await studioStore.refreshServers();
    });
  };
  return (
    <form class="card" onSubmit={submit}>
      <h3>Register a server</h3>
      <p class="muted">
        For this studio only, validated like <code>muster mcp add</code>; nothing is written to a
        config file.
      </p>
      <div class="field">
        <label for="register-name">Name</label>
        <input
          id="register-name"
          name="name"
          data-testid="register-name"
          required
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="register-config">Configuration (JSON)</label>
        <textarea
          id="register-config"
          name="config"
          class="json-input"
          data-testid="register-config"
          rows={6}
          spellcheck={false}
          placeholder={EXAMPLE}
          value={config}
          onInput={(e) => setConfig(e.currentTarget.value)}
        />
      </div>
      <FormError error={action.error} />
      <button type="submit" class="primary" data-testid="register-submit" disabled={action.busy}>
        Register
      </button>
    </form>
  );
}

/** `#/servers`: every server's status, with reconnect, unregister and register. */
export function ServersPage() {
  const { servers } = useStudio();
  return (
    <section data-testid="page-servers">
      <h2>Servers</h2>
      {servers === undefined ? (
        <p class="muted">Loading…</p>
      ) : servers.length === 0 ? (
        <p class="muted">No servers configured.</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>Server</th>
              <th>Status</th>
              <th>Protocol</th>
              <th>Tools</th>
              <th>Error</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {servers.map((server) => (
              <ServerRow key={server.name} server={server} />
            ))}
          </tbody>
        </table>
      )}
      <RegisterForm />
    </section>
  );
}
