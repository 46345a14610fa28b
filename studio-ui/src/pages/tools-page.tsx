import { useEffect, useState } from 'preact/hooks';
import type { CallToolResponse, PendingApproval, ToolView } from '../../../src/studio/api-types.js';
import { AppFrame } from '../apps/app-frame.js';
import { api, serverPath } from '../api.js';
import { FormError } from '../form-error.js';
import { JsonView } from '../json-view.js';
import { routeLink } from '../router.js';
import { SchemaForm, useSchemaForm } from '../schema-form.js';
import { ServerSelect } from '../server-select.js';
import { ToolResult } from '../tool-result.js';
import { useAction } from '../use-action.js';
import { useStudio } from '../use-studio.js';

/** The tools answer: a list, or `{ tools }`. */
function toolList(response: unknown): ToolView[] {
  if (Array.isArray(response)) return response as ToolView[];
  const tools = (response as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) ? (tools as ToolView[]) : [];
}

interface CallState {
  readonly seq: number;
  /** The page's id of the call: the approval it may wait on carries it (`request.callId`). */
  readonly callId: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly response?: CallToolResponse;
}

/** A fresh call id (`call-<uuid>`, within the studio's 64 characters of `A-Z a-z 0-9 _ -`). */
function newCallId(): string {
  return typeof crypto.randomUUID === 'function'
    ? `call-${crypto.randomUUID()}`
    : `call-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/** The call is waiting for a person: says so, and links to its approval (a new tab). */
function WaitingForApproval({ approval }: { readonly approval: PendingApproval }) {
  return (
    <section class="card" data-testid="tool-waiting">
      <div class="result-head">
        <span class="status status-pending">waits for approval</span>
        <a
          href={routeLink('approvals', approval.id)}
          target="_blank"
          rel="noopener"
          data-testid="tool-approval-link"
        >
          Open the approval
        </a>
      </div>
      <p class="muted">
        The call runs once it is allowed on the Approvals page; its duration leaves the wait out.
      </p>
    </section>
  );
}

function ToolDetail({ server, tool }: { readonly server: string; readonly tool: ToolView }) {
  const form = useSchemaForm(tool.inputSchema);
  const action = useAction();
  const { approvals } = useStudio();
  const [call, setCall] = useState<CallState | undefined>(undefined);
  // a call the policy refused answers 403 with the decision
  const refused = action.error?.decision;
  // the approval the call in flight waits on, if the policy asked a person
  const waiting =
    call && !call.response && action.busy
      ? approvals.find((a) => a.request.callId === call.callId)
      : undefined;
  const submit = (event: Event) => {
    event.preventDefault();
    const input = form.submit();
    if (!input) return;
    const seq = (call?.seq ?? 0) + 1;
    const callId = newCallId();
    setCall({ seq, callId, input });
    void action.run(async () => {
      const response = await api.post<CallToolResponse>(
        serverPath(server, 'tools', tool.name, 'call'),
        { arguments: input, callId },
      );
      setCall((c) => (c && c.seq === seq ? { ...c, response } : c));
    });
  };
  return (
    <div class="detail">
      <h3>{tool.title ?? tool.name}</h3>
      <p class="muted">
        <code>{tool.modelName}</code>
        {tool.visibility && <> · visible to {tool.visibility.join(', ')}</>}
        {tool.uiResourceUri && (
          <>
            {' '}
            · view <code>{tool.uiResourceUri}</code>
          </>
        )}
      </p>
      {tool.description && <p class="description">{tool.description}</p>}
      <div class="columns">
        <div>
          <h4>Annotations</h4>
          <JsonView value={tool.annotations ?? {}} testId="tool-annotations" />
        </div>
        <div>
          <h4>Input schema</h4>
          <JsonView value={tool.inputSchema} testId="tool-schema" />
        </div>
      </div>
      {tool.outputSchema && (
        <details>
          <summary>Output schema</summary>
          <JsonView value={tool.outputSchema} />
        </details>
      )}
      <form class="card" onSubmit={submit} noValidate>
        <h4>Call through the policy</h4>
        <SchemaForm form={form} />
        <FormError error={action.error} />
        <button type="submit" class="primary" data-testid="tool-call" disabled={action.busy}>
          {waiting ? 'Waiting for approval…' : action.busy ? 'Calling…' : 'Call'}
        </button>
      </form>
      {waiting && <WaitingForApproval approval={waiting} />}
      {call?.response && <ToolResult response={call.response} />}
      {call && !call.response && refused && (
        <section class="card">
          <div class="result-head">
            <span class={`decision decision-${refused.decision}`} data-testid="tool-decision">
              {refused.decision} ({refused.stage})
            </span>
            {refused.reason && <span class="muted">{refused.reason}</span>}
          </div>
        </section>
      )}
      {call && tool.uiResourceUri && (
        <AppFrame
          key={call.seq}
          server={server}
          tool={tool}
          input={call.input}
          {...(call.response?.result ? { result: call.response.result } : {})}
        />
      )}
    </div>
  );
}

/** `#/tools`: a server's tools, each with its schema and a generated form to call it. */
export function ToolsPage() {
  const [server, setServer] = useState('');
  const [listed, setListed] = useState<{ server: string; tools: ToolView[] }>({
    server: '',
    tools: [],
  });
  // only the chosen server's tools, never the previous server's while the new list loads
  const tools = listed.server === server ? listed.tools : [];
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const action = useAction();
  useEffect(() => {
    setSelected(undefined);
    if (server === '') return;
    let live = true;
    void action.run(async () => {
      const list = toolList(await api.get<unknown>(serverPath(server, 'tools')));
      if (live) setListed({ server, tools: list });
    });
    return () => {
      live = false;
    };
  }, [server]);
  const tool = tools.find((t) => t.name === selected);
  return (
    <section data-testid="page-tools">
      <h2>Tools</h2>
      <div class="toolbar">
        <ServerSelect testId="tools-server" value={server} onChange={setServer} />
      </div>
      <FormError error={action.error} />
      <div class="split">
        <ul class="list">
          {tools.map((t) => (
            <li key={t.name}>
              <button
                type="button"
                class={t.name === selected ? 'item selected' : 'item'}
                data-testid="tool-item"
                data-tool={t.name}
                onClick={() => setSelected(t.name)}
              >
                <strong>{t.title ?? t.name}</strong>
                {t.annotations?.readOnlyHint === true && <span class="tag">read-only</span>}
                {t.annotations?.destructiveHint === true && (
                  <span class="tag tag-error">destructive</span>
                )}
                {t.uiResourceUri && <span class="tag">app</span>}
                {t.visibility && !t.visibility.includes('model') && (
                  <span class="tag" title="only its MCP Apps view may call it">
                    app only
                  </span>
                )}
                {t.description && <small class="muted">{t.description}</small>}
              </button>
            </li>
          ))}
          {tools.length === 0 && !action.busy && <li class="muted">No tools.</li>}
        </ul>
        {tool ? (
          <ToolDetail key={`${server}/${tool.name}`} server={server} tool={tool} />
        ) : (
          <p class="muted">Choose a tool.</p>
        )}
      </div>
    </section>
  );
}
