import type { SessionView, StudioEvent } from '../../src/studio/api-types.js';
import { api } from './api.js';
import { studioStore, type StudioStore } from './studio-store.js';

type AgentEvent = Extract<StudioEvent, { kind: 'agent' }>['event'];

/**
 * One line of a run's timeline: an agent event (progress events share one line per call).
 * The discovery before the first model turn (servers connecting, tools listed) is one line
 * of type `discovery`: `event` is its first event, `folded` all of them.
 */
export interface TimelineEntry {
  readonly key: string;
  readonly type: string;
  readonly event: AgentEvent;
  readonly folded?: readonly AgentEvent[];
}

/** The type and key of the folded discovery line. */
export const DISCOVERY = 'discovery';

/** Events of tool discovery: folded into one line until the model's first turn. */
const DISCOVERY_TYPES: ReadonlySet<string> = new Set([
  'mcp.tool.discovered',
  'mcp.catalog.updated',
  'mcp.server.changed',
]);
/** Server statuses that are part of connecting; a failure keeps its own line. */
const CONNECTING_STATUSES: ReadonlySet<string> = new Set([
  'pending',
  'connecting',
  'reconnecting',
  'connected',
]);

function isDiscovery(event: AgentEvent): boolean {
  if (DISCOVERY_TYPES.has(event.type)) return true;
  return event.type === 'mcp.server.status' && CONNECTING_STATUSES.has(event.status);
}

/** What a discovery line says: the servers it saw connect, and the tools they listed. */
export interface DiscoverySummary {
  readonly servers: readonly string[];
  readonly tools: number;
}

/** Sums up the folded discovery events (pure). */
export function summarizeDiscovery(events: readonly AgentEvent[]): DiscoverySummary {
  const servers: string[] = [];
  const tools = new Set<string>();
  for (const e of events) {
    if ('server' in e && typeof e.server === 'string' && !servers.includes(e.server))
      servers.push(e.server);
    if (e.type === 'mcp.tool.discovered') tools.add(e.toolName);
  }
  return { servers, tools: tools.size };
}

/** How many characters of a tool's result the timeline shows on the call's line. */
export const RESULT_PREVIEW_CHARS = 160;

/** A result as one short line: whitespace folded, cut at `max` characters with `…` (pure). */
export function resultPreview(content: string, max = RESULT_PREVIEW_CHARS): string {
  const line = content.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What the timeline knows about one tool call, gathered from its events. */
export interface ToolCallInfo {
  readonly name: string;
  readonly decision?: string;
  readonly stage?: string;
  readonly durationMs?: number;
  readonly isError?: boolean;
  readonly errorCode?: string;
  readonly progress?: number;
  readonly total?: number;
  readonly message?: string;
}

/** One session's live run as the page saw it. */
export interface RunRecord {
  readonly sessionId: string;
  readonly status: string;
  readonly text: string;
  readonly reasoning: string;
  readonly entries: readonly TimelineEntry[];
  readonly calls: Readonly<Record<string, ToolCallInfo>>;
  readonly error?: { readonly code: string; readonly message: string };
  /** The next text delta starts a new model turn. */
  readonly turnEnded: boolean;
  /** Text deltas arrived in this turn (else its text comes from `model.completed`). */
  readonly turnStreamed: boolean;
  /** The model has started its first turn: discovery events get their own lines again. */
  readonly modelStarted: boolean;
}

const MAX_ENTRIES = 1000;

/** A record before any event arrived. */
export function emptyRun(sessionId: string): RunRecord {
  return {
    sessionId,
    status: 'running',
    text: '',
    reasoning: '',
    entries: [],
    calls: {},
    turnEnded: false,
    turnStreamed: false,
    modelStarted: false,
  };
}

function withEntry(run: RunRecord, entry: TimelineEntry): RunRecord {
  const entries = [...run.entries, entry];
  return { ...run, entries: entries.length > MAX_ENTRIES ? entries.slice(-MAX_ENTRIES) : entries };
}

/** Adds `event` to the run's discovery line (the line is made by the first one). */
function withDiscovery(run: RunRecord, event: AgentEvent): RunRecord {
  const at = run.entries.findIndex((e) => e.key === DISCOVERY);
  if (at < 0) return withEntry(run, { key: DISCOVERY, type: DISCOVERY, event, folded: [event] });
  const line = run.entries[at]!;
  const entries = [...run.entries];
  entries[at] = { ...line, folded: [...(line.folded ?? []), event] };
  return { ...run, entries };
}

function withCall(
  run: RunRecord,
  callId: string,
  name: string,
  patch: Partial<ToolCallInfo>,
): RunRecord {
  const previous = run.calls[callId] ?? { name };
  return { ...run, calls: { ...run.calls, [callId]: { ...previous, ...patch } } };
}

function errorOf(error: unknown): { code: string; message: string } {
  const e = (error ?? {}) as { code?: unknown; message?: unknown };
  return {
    code: typeof e.code === 'string' ? e.code : 'RUN_FAILED',
    message: typeof e.message === 'string' ? e.message : 'The run failed.',
  };
}

/** What goes between the text of the turn before and a new turn's: a blank line. */
function turnGap(run: RunRecord): string {
  if (!run.turnEnded || run.text === '') return '';
  const trailing = /\n*$/.exec(run.text)![0].length;
  return '\n'.repeat(Math.max(0, 2 - trailing));
}

/** Folds one agent event into its session's record (pure). */
export function reduceRun(run: RunRecord, event: AgentEvent, seq: number): RunRecord {
  const entry: TimelineEntry = { key: `${seq}`, type: event.type, event };
  // before the model's first turn, connecting and listing tools is one line
  if (!run.modelStarted && isDiscovery(event)) return withDiscovery(run, event);
  switch (event.type) {
    case 'model.delta': {
      if (event.kind === 'reasoning')
        return { ...run, reasoning: run.reasoning + event.content, modelStarted: true };
      const text = run.text + turnGap(run) + event.content;
      return { ...run, text, turnEnded: false, turnStreamed: true, modelStarted: true };
    }
    case 'model.completed': {
      // a model that does not stream still shows its text
      const text =
        run.turnStreamed || event.text === '' ? run.text : run.text + turnGap(run) + event.text;
      return {
        ...withEntry(run, entry),
        text,
        turnEnded: true,
        turnStreamed: false,
        modelStarted: true,
      };
    }
    case 'session.started':
      // a new run of the session: its own timeline
      return withEntry(emptyRun(run.sessionId), entry);
    case 'session.completed':
      return withEntry({ ...run, status: 'completed' }, entry);
    case 'session.failed':
      return withEntry({ ...run, status: 'failed', error: errorOf(event.error) }, entry);
    case 'session.parked':
      // it waits on a decision (SPEC 15.1): decided on the Approvals page, then resumed
      return withEntry({ ...run, status: 'parked' }, entry);
    case 'tool.decision':
      return withEntry(
        withCall(run, event.callId, event.toolName, {
          decision: event.decision,
          stage: event.stage,
        }),
        entry,
      );
    case 'tool.called':
      return withEntry(withCall(run, event.callId, event.toolName, {}), entry);
    case 'tool.completed':
      return withEntry(
        withCall(run, event.callId, event.toolName, {
          durationMs: event.durationMs,
          isError: event.isError,
          ...(event.errorCode ? { errorCode: event.errorCode } : {}),
        }),
        entry,
      );
    case 'tool.progress': {
      const first = run.calls[event.callId]?.progress === undefined;
      const next = withCall(run, event.callId, event.toolName, {
        progress: event.progress,
        ...(event.total !== undefined ? { total: event.total } : {}),
        ...(event.message !== undefined ? { message: event.message } : {}),
      });
      // one progress line per call, updated in place
      return first ? withEntry(next, { ...entry, key: `progress-${event.callId}` }) : next;
    }
    default:
      return withEntry(run, entry);
  }
}

type Listener = () => void;

/** Reads a stored session (`GET /api/sessions/:id`). */
export type SessionLoader = (sessionId: string) => Promise<SessionView>;

const loadSession: SessionLoader = (sessionId) =>
  api.get<SessionView>(`/api/sessions/${encodeURIComponent(sessionId)}`);

/**
 * A run the stream lost track of (its `run.ended` came while the page was reconnecting),
 * completed from its stored session: the stored status, and the final text when none was
 * streamed (pure).
 */
export function endedFromStore(run: RunRecord, session: SessionView | undefined): RunRecord {
  if (run.status !== 'running') return run;
  const stored = session?.status;
  const status =
    stored === undefined || stored === 'running' || stored === 'idle' ? 'ended' : stored;
  const text = run.text === '' && session?.finalContent ? session.finalContent : run.text;
  return { ...run, status, text };
}

/** Which sources the store reads events and stored sessions from. */
type EventFeed = Pick<StudioStore, 'onEvent'>;

/**
 * Every session's run record, fed by the studio's `agent` and `run.ended` events. On every
 * `hello` (the stream opened again) a run still shown as running that the studio no longer
 * lists as live has ended unseen: it is marked ended and its stored session read again.
 */
export class RunStore {
  private readonly runs = new Map<string, RunRecord>();
  private readonly listeners = new Set<Listener>();
  private seq = 0;
  /** The session the Runs page shows (the last run started or resumed from the page). */
  focused: string | undefined;

  constructor(
    studio: EventFeed,
    private readonly load: SessionLoader = loadSession,
  ) {
    studio.onEvent((event) => this.receive(event));
  }

  get(sessionId: string): RunRecord | undefined {
    return this.runs.get(sessionId);
  }

  /** Records a run the page just started (its events may have arrived already). */
  begin(sessionId: string): void {
    if (!this.runs.has(sessionId)) this.put(emptyRun(sessionId));
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private receive(event: StudioEvent): void {
    if (event.kind === 'agent') {
      const id = event.event.sessionId;
      this.put(reduceRun(this.runs.get(id) ?? emptyRun(id), event.event, ++this.seq));
    } else if (event.kind === 'run.ended') {
      const run = this.runs.get(event.sessionId) ?? emptyRun(event.sessionId);
      if (run.status === 'running')
        this.put({
          ...run,
          status: event.status,
          ...(event.error !== undefined && run.error === undefined ? { error: event.error } : {}),
        });
    } else if (event.kind === 'hello') {
      const live = new Set(Array.isArray(event.runs) ? event.runs : []);
      for (const run of this.runs.values())
        if (run.status === 'running' && !live.has(run.sessionId)) void this.reread(run.sessionId);
    }
  }

  /** Marks a run that ended unseen as ended, from its stored session when it can be read. */
  private async reread(sessionId: string): Promise<void> {
    const before = this.runs.get(sessionId);
    let session: SessionView | undefined;
    try {
      session = await this.load(sessionId);
    } catch {
      session = undefined;
    }
    // an event of the session arrived meanwhile (a new run of it, say): it says more
    const run = this.runs.get(sessionId);
    if (run !== undefined && run === before) this.put(endedFromStore(run, session));
  }

  private put(run: RunRecord): void {
    this.runs.set(run.sessionId, run);
    for (const listener of this.listeners) listener();
  }
}

/** The page's run records. */
export const runStore = new RunStore(studioStore);
