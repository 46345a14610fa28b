import { CallArchive } from './archive-pager.js';
import { DISCOVERY, resultPreview, summarizeDiscovery } from './run-store.js';
import type { RunRecord, TimelineEntry, ToolCallInfo } from './run-store.js';

type AgentEvent = TimelineEntry['event'];

/** How much of a result the preview's tooltip holds. */
const TITLE_CHARS = 2000;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** One event of the folded discovery line. */
function DiscoveryFact({ event: e }: { readonly event: AgentEvent }) {
  switch (e.type) {
    case 'mcp.server.status':
      return (
        <span>
          {e.server} → {e.status}
        </span>
      );
    case 'mcp.tool.discovered':
      return (
        <span>
          {e.server}: <code>{e.toolName}</code>
        </span>
      );
    case 'mcp.catalog.updated':
      return (
        <span>
          {e.server}: {e.reason}, {plural(e.toolCount, 'tool')}
        </span>
      );
    case 'mcp.server.changed':
      return (
        <span>
          {e.server} {e.change}
        </span>
      );
    default:
      return null;
  }
}

/** The discovery before the model's first turn, as one line that opens to its events. */
function Discovery({ entry }: { readonly entry: TimelineEntry }) {
  const folded = entry.folded ?? [entry.event];
  const { servers, tools } = summarizeDiscovery(folded);
  return (
    <details class="discovery" data-testid="timeline-discovery">
      <summary>
        {plural(servers.length, 'server')}
        {servers.length > 0 ? ` (${servers.join(', ')})` : ''} · {plural(tools, 'tool')} listed{' '}
        <span class="muted">({plural(folded.length, 'event')})</span>
      </summary>
      <ul class="folded">
        {folded.map((e, i) => (
          <li key={i}>
            <span class="tag">{e.type}</span> <DiscoveryFact event={e} />
          </li>
        ))}
      </ul>
    </details>
  );
}

function time(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString();
}

function ToolFacts({ call }: { readonly call: ToolCallInfo | undefined }) {
  if (!call) return null;
  return (
    <>
      {call.decision && (
        <span class={`decision decision-${call.decision}`} data-testid="timeline-decision">
          {call.decision}
          {call.stage ? ` (${call.stage})` : ''}
        </span>
      )}
      {call.durationMs !== undefined && (
        <span class="muted" data-testid="timeline-duration">
          {Math.round(call.durationMs)} ms
        </span>
      )}
      {call.isError && <span class="tag tag-error">{call.errorCode ?? 'error'}</span>}
    </>
  );
}

function Summary({ entry, run }: { readonly entry: TimelineEntry; readonly run: RunRecord }) {
  const e = entry.event;
  switch (e.type) {
    case 'session.started':
      return (
        <span>
          model {e.modelName}
          {e.continued ? ' · continued' : ''}
        </span>
      );
    case 'session.completed':
      return <span>{e.iterations} iterations</span>;
    case 'session.failed':
      return (
        <span class="error-text">
          {run.error ? `${run.error.code}: ${run.error.message}` : 'failed'}
        </span>
      );
    case 'session.parked':
      return (
        <span data-testid="timeline-parked">
          waits on {e.waits.length} decision{e.waits.length === 1 ? '' : 's'}: answer on the{' '}
          <a href="#/approvals">Approvals</a> page, then resume
        </span>
      );
    case 'wait.created':
      return (
        <span>
          <code>{e.wait.toolName ?? e.wait.kind}</code> parked{' '}
          <span class="muted">{e.wait.id}</span>
        </span>
      );
    case 'wait.decided': {
      const d = e.decision;
      const what = d === undefined ? 'expired' : 'decision' in d ? d.decision : d.action;
      return (
        <span>
          <span class="muted">{e.waitId}</span> {what}
          {e.applied ? ' · applied' : ' · void: the call, its tool or the policy changed'}
        </span>
      );
    }
    case 'model.completed':
      return (
        <span>
          turn {e.iteration} · {e.stopReason}
          {e.toolCalls.length > 0 && ` · ${e.toolCalls.length} tool call(s)`}
        </span>
      );
    case 'tool.approval.requested':
      return <span>{e.toolName} waits for approval</span>;
    case 'tool.decision':
      return (
        <span>
          <code>{e.toolName}</code>{' '}
          <ToolFacts call={{ name: e.toolName, decision: e.decision, stage: e.stage }} />
          {e.reason && <span class="muted"> {e.reason}</span>}
        </span>
      );
    case 'tool.called':
      return (
        <span>
          <code>{e.toolName}</code> <ToolFacts call={run.calls[e.callId]} />
        </span>
      );
    case 'tool.completed':
      return (
        <span>
          <code>{e.toolName}</code> <span class="muted">{Math.round(e.durationMs)} ms</span>
          {e.isError && <span class="tag tag-error">{e.errorCode ?? 'error'}</span>}{' '}
          {e.content !== '' && (
            <span
              class="result-preview"
              data-testid="timeline-result"
              title={e.content.slice(0, TITLE_CHARS)}
            >
              {resultPreview(e.content)}
            </span>
          )}
          {e.executed && (
            <CallArchive sessionId={run.sessionId} callId={e.callId} preview={e.content} />
          )}
        </span>
      );
    case 'tool.progress': {
      const call = run.calls[e.callId];
      const progress = call?.progress ?? e.progress;
      const total = call?.total;
      return (
        <span class="progress-line">
          <code>{e.toolName}</code>
          <progress
            data-testid="run-progress"
            data-progress={String(progress)}
            data-total={total === undefined ? '' : String(total)}
            value={progress}
            {...(total !== undefined ? { max: total } : {})}
          />
          <span class="muted">
            {progress}
            {total !== undefined ? ` / ${total}` : ''} {call?.message ?? ''}
          </span>
        </span>
      );
    }
    case 'context.compacted':
      return (
        <span>
          {e.strategy}: {e.removedMessages} message(s) left out
        </span>
      );
    case 'mcp.server.status':
      return (
        <span>
          {e.server} → {e.status}
          {e.error && <span class="muted"> {e.error.code}</span>}
        </span>
      );
    case 'mcp.diagnostic':
      return (
        <span>
          {e.server}: {e.message}
        </span>
      );
    default:
      return 'server' in e ? <span>{String(e.server)}</span> : null;
  }
}

/**
 * A run's events in order: one line each, tool calls with their decision, duration and a
 * preview of their result; the discovery before the first model turn is one line.
 */
export function RunTimeline({ run }: { readonly run: RunRecord }) {
  return (
    <ol class="timeline" data-testid="run-timeline">
      {run.entries.map((entry) => (
        <li
          key={entry.key}
          class={`timeline-item type-${entry.type.replace(/\./g, '-')}`}
          data-testid="timeline-item"
          data-type={entry.type}
        >
          <span class="muted time">{time(entry.event.timestamp)}</span>
          <span class="tag">{entry.type}</span>
          {entry.type === DISCOVERY ? (
            <Discovery entry={entry} />
          ) : (
            <Summary entry={entry} run={run} />
          )}
        </li>
      ))}
    </ol>
  );
}
