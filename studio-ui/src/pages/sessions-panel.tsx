import { useCallback, useEffect, useState } from 'preact/hooks';
import type { SessionsResponse, SessionView, StudioEvent } from '../../../src/studio/api-types.js';
import { api } from '../api.js';
import { ContentBlock } from '../content-block.js';
import { FormError } from '../form-error.js';
import { JsonView } from '../json-view.js';
import { useAction } from '../use-action.js';
import { useStudioEvents } from '../use-studio.js';
import { SessionBudget } from './session-budget.js';

type Message = Readonly<Record<string, unknown>>;

function MessageBody({ message }: { readonly message: Message }) {
  const content = message.content;
  if (typeof content === 'string') return <pre class="text">{content}</pre>;
  if (Array.isArray(content)) {
    return (
      <>
        {content.map((part, i) =>
          typeof part === 'object' &&
          part !== null &&
          typeof (part as Message).type === 'string' ? (
            <ContentBlock key={i} block={part as Message} />
          ) : (
            <JsonView key={i} value={part} />
          ),
        )}
      </>
    );
  }
  return <JsonView value={message} />;
}

/** The store's past sessions, newest first, and the messages of the chosen one. */
export function SessionsPanel() {
  const [list, setList] = useState<SessionsResponse | undefined>(undefined);
  const [session, setSession] = useState<SessionView | undefined>(undefined);
  const load = useAction();
  const open = useAction();
  const refresh = useCallback(() => {
    void load.run(async () => setList(await api.get<SessionsResponse>('/api/sessions')));
  }, []);
  useEffect(refresh, [refresh]);
  useStudioEvents(
    useCallback(
      (event: StudioEvent) => {
        if (event.kind === 'run.ended') refresh();
      },
      [refresh],
    ),
  );
  const show = (id: string) =>
    open.run(async () =>
      setSession(await api.get<SessionView>(`/api/sessions/${encodeURIComponent(id)}`)),
    );
  return (
    <div class="card">
      <div class="result-head">
        <h3>Past sessions</h3>
        <button type="button" onClick={refresh}>
          Refresh
        </button>
      </div>
      <FormError error={load.error ?? open.error} />
      <div class="split">
        <ul class="list">
          {(list?.sessions ?? []).map((s) => (
            <li key={s.id}>
              <button
                type="button"
                class={session?.id === s.id ? 'item selected' : 'item'}
                data-testid="session-item"
                data-session={s.id}
                onClick={() => show(s.id)}
              >
                <strong>{s.title ?? s.id}</strong>
                <small class="muted">
                  {s.status} · {new Date(s.updatedAt).toLocaleString()}
                </small>
              </button>
            </li>
          ))}
          {list && list.sessions.length === 0 && <li class="muted">No sessions yet.</li>}
        </ul>
        {session ? (
          <div class="detail">
            <p class="muted">
              <code>{session.id}</code> · {session.status}
            </p>
            <SessionBudget session={session} />
            <div data-testid="session-messages">
              {session.messages.map((message, i) => (
                <div class="message" key={i}>
                  <span class="tag">{String(message.role ?? 'message')}</span>
                  <MessageBody message={message} />
                </div>
              ))}
            </div>
            {session.finalContent && (
              <>
                <h4>Final answer</h4>
                <pre class="text">{session.finalContent}</pre>
              </>
            )}
          </div>
        ) : (
          <p class="muted">Choose a session.</p>
        )}
      </div>
    </div>
  );
}
