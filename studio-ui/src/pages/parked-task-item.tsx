import type { ParkedWait } from '../../../src/studio/api-types.js';
import { api } from '../api.js';
import { FormError } from '../form-error.js';
import { useAction } from '../use-action.js';
import { useRun } from '../use-run.js';
import { cancelTask } from '../wait-actions.js';
import { WaitFacts, WaitResume, waitState, when } from './wait-parts.js';

/** A ttl in words: `60 s`, `no limit`. */
function ttlText(ttlMs: number | null): string {
  if (ttlMs === null) return 'no limit';
  return ttlMs % 1000 === 0 ? `${ttlMs / 1000} s` : `${ttlMs} ms`;
}

/**
 * One MCP task a run waits on (a `task` wait, SPEC 15.3): the task as the run last polled it
 * (status, the server's status message, id, server, tool, when it was polled, its ttl), and
 * Cancel the task, which decides the wait `cancel` and resumes the run here: the resume sends
 * `tasks/cancel` once and the call ends with an unknown outcome. While a run of this studio
 * polls the task, Cancel the run instead (its abort sends the cancel).
 */
export function ParkedTaskItem({ wait }: { readonly wait: ParkedWait }) {
  const action = useAction();
  const state = waitState(wait);
  const run = useRun(wait.sessionId);
  const polling = run?.status === 'running';
  const task = wait.task;
  return (
    <li
      class="card approval"
      data-testid="task-wait-item"
      data-id={wait.id}
      data-session={wait.sessionId}
      data-task={task?.taskId}
      data-state={state}
    >
      <div class="result-head">
        <strong data-testid="task-wait-tool">{wait.toolName ?? 'task'}</strong>
        <span class={`status status-${task?.status ?? 'pending'}`} data-testid="task-status">
          {task?.status ?? 'unknown'}
        </span>
      </div>
      {task && (
        <dl class="facts">
          <dt>Task</dt>
          <dd>
            <code data-testid="task-id">{task.taskId}</code>
          </dd>
          {task.statusMessage !== undefined && (
            <>
              <dt>Status message</dt>
              <dd data-testid="task-status-message">{task.statusMessage}</dd>
            </>
          )}
          <dt>Last polled</dt>
          <dd data-testid="task-polled">
            {task.polledAt === undefined ? 'not yet' : when(task.polledAt)}
          </dd>
          <dt>Time to live</dt>
          <dd data-testid="task-ttl">
            {ttlText(task.ttlMs)}
            {task.ttlEndsAt !== undefined && ` (until ${when(task.ttlEndsAt)})`}
          </dd>
          {task.pollIntervalMs !== undefined && (
            <>
              <dt>Poll interval</dt>
              <dd>{task.pollIntervalMs} ms</dd>
            </>
          )}
        </dl>
      )}
      <WaitFacts wait={wait} />
      <FormError error={action.error} />
      {state === 'pending' ? (
        polling ? (
          <>
            <p class="muted">This studio's run polls the task now.</p>
            <div class="toolbar">
              <button
                type="button"
                data-testid="task-cancel-run"
                disabled={action.busy}
                onClick={() =>
                  void action.run(() =>
                    api.post(`/api/runs/${encodeURIComponent(wait.sessionId)}/cancel`),
                  )
                }
              >
                Cancel the run (and its task)
              </button>
            </div>
          </>
        ) : (
          <div class="toolbar">
            <button
              type="button"
              class="danger"
              data-testid="task-cancel"
              disabled={action.busy}
              onClick={() => void action.run(() => cancelTask(wait))}
            >
              Cancel the task
            </button>
          </div>
        )
      ) : (
        <WaitResume wait={wait} />
      )}
    </li>
  );
}
