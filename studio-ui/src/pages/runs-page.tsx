import { useState } from 'preact/hooks';
import type { StartRunResponse } from '../../../src/studio/api-types.js';
import { api } from '../api.js';
import { FormError } from '../form-error.js';
import { runStore } from '../run-store.js';
import { RunTimeline } from '../run-timeline.js';
import { useAction } from '../use-action.js';
import { useRun } from '../use-run.js';
import { SessionsPanel } from './sessions-panel.js';

/** `#/runs`: start a run and watch it live; past sessions from the store. */
export function RunsPage() {
  const [prompt, setPrompt] = useState('');
  const [model, setModel] = useState('');
  const [sessionId, setSessionId] = useState<string | undefined>(runStore.focused);
  const run = useRun(sessionId);
  const start = useAction();
  const cancel = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    if (prompt.trim() === '') {
      start.setError(undefined);
      return;
    }
    void start.run(async () => {
      const body = { prompt, ...(model.trim() !== '' ? { modelName: model.trim() } : {}) };
      const response = await api.post<StartRunResponse>('/api/runs', body);
      runStore.begin(response.sessionId);
      runStore.focused = response.sessionId;
      setSessionId(response.sessionId);
    });
  };
  const stop = () =>
    sessionId && cancel.run(() => api.post(`/api/runs/${encodeURIComponent(sessionId)}/cancel`));
  return (
    <section data-testid="page-runs">
      <h2>Runs</h2>
      <form class="card" onSubmit={submit}>
        <div class="field">
          <label for="run-prompt">Prompt</label>
          <textarea
            id="run-prompt"
            data-testid="run-prompt"
            rows={3}
            value={prompt}
            onInput={(e) => setPrompt(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="run-model">Model name (optional; the provider is the studio's)</label>
          <input
            id="run-model"
            data-testid="run-model"
            value={model}
            onInput={(e) => setModel(e.currentTarget.value)}
          />
        </div>
        <FormError error={start.error ?? cancel.error} />
        <div class="toolbar">
          <button
            type="submit"
            class="primary"
            data-testid="run-start"
            disabled={start.busy || prompt.trim() === ''}
          >
            Start
          </button>
          <button
            type="button"
            data-testid="run-cancel"
            disabled={!run || run.status !== 'running' || cancel.busy}
            onClick={stop}
          >
            Cancel
          </button>
        </div>
      </form>
      {sessionId && (
        <div class="card">
          <div class="result-head">
            <span>
              Session <code>{sessionId}</code>
            </span>
            <span class={`status status-${run?.status ?? 'running'}`} data-testid="run-status">
              {run?.status ?? 'running'}
            </span>
          </div>
          {run?.error && (
            <div class="form-error" data-testid="form-error">
              <strong>{run.error.code}</strong>: {run.error.message}
            </div>
          )}
          <h4>Assistant</h4>
          <pre class="run-text" data-testid="run-text">
            {run?.text ?? ''}
          </pre>
          {run && run.reasoning !== '' && (
            <details>
              <summary>Reasoning</summary>
              <pre class="text">{run.reasoning}</pre>
            </details>
          )}
          <h4>Timeline</h4>
          {run ? <RunTimeline run={run} /> : <ol class="timeline" data-testid="run-timeline" />}
        </div>
      )}
      <SessionsPanel />
    </section>
  );
}
