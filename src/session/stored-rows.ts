import type { ModelMessage } from '../model/index.js';
import type { SessionArchiveItem } from './session-archive.js';
import type { SessionBudget } from './session-budget.js';
import type { SessionState, SessionStatus, SessionSummary } from './session-store.js';
import type { Wait, WaitQuery } from './session-waits.js';

// Conversions between database rows and session values (and waits), shared by the SQLite and
// PostgreSQL stores. JSON columns arrive as text (SQLite) or parsed values (PostgreSQL jsonb).

/** A session row, as both databases return it. */
export interface SessionRow {
  readonly id: string;
  readonly status: string;
  readonly iteration: number | string;
  readonly created_at: string | Date;
  readonly updated_at: string | Date;
  readonly final_content: string | null;
  /** JSON text in both databases (a JSON string would be ambiguous as jsonb); NULL when none. */
  readonly final_output?: unknown;
  readonly usage: unknown;
  readonly error: unknown;
  readonly archive_refs: unknown;
  readonly started_calls: unknown;
  readonly message_count: number | string;
  /** The seq of the last logged event (schema 4 on). */
  readonly event_seq?: number | string;
  /** The principal the session acts for; NULL for the local user (schema 5 on). */
  readonly principal?: string | null;
  /** The latest run's budget as JSON text; NULL when none (schema 6 on). */
  readonly budget?: string | null;
}

/** An archive row. */
export interface ArchiveRow {
  readonly ref: string;
  readonly session_id: string;
  readonly kind: string;
  readonly mime_type: string;
  readonly bytes: number | string;
  readonly text: string | null;
  readonly data: Buffer | null;
  readonly tool_name: string;
  readonly call_id: string;
  readonly created_at: string | Date;
}

function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function iso(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString();
}

/** The session a row and its messages describe. */
export function rowToState(row: SessionRow, messages: readonly unknown[]): SessionState {
  const error = json<SessionState['error'] | null>(row.error);
  return {
    id: row.id,
    status: row.status as SessionStatus,
    messages: messages.map((m) => json<ModelMessage>(m)),
    iteration: Number(row.iteration),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    ...(row.final_content !== null ? { finalContent: row.final_content } : {}),
    ...(row.final_output !== null && row.final_output !== undefined
      ? { finalOutput: json<unknown>(row.final_output) }
      : {}),
    usage: json(row.usage),
    archiveRefs: json(row.archive_refs),
    startedCalls: json(row.started_calls),
    ...(error ? { error } : {}),
    eventSeq: Number(row.event_seq ?? 0),
    ...(typeof row.principal === 'string' ? { principal: row.principal } : {}),
    ...(typeof row.budget === 'string' ? { budget: json<SessionBudget>(row.budget) } : {}),
  };
}

/** The listing view of a row. */
export function rowToSummary(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    status: row.status as SessionStatus,
    messageCount: Number(row.message_count),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** The archived item a row holds. */
export function rowToItem(row: ArchiveRow): SessionArchiveItem {
  return {
    ref: row.ref,
    sessionId: row.session_id,
    kind: row.kind as SessionArchiveItem['kind'],
    mimeType: row.mime_type,
    bytes: Number(row.bytes),
    ...(row.text !== null ? { text: row.text } : {}),
    ...(row.data !== null ? { data: row.data.toString('base64') } : {}),
    toolName: row.tool_name,
    callId: row.call_id,
    createdAt: iso(row.created_at),
  };
}

/**
 * The column values of a new session row, in the order both SQL stores insert them: id,
 * status, iteration, created_at, updated_at, final_content, usage, error, archive_refs,
 * started_calls, message_count, final_output, principal, budget.
 */
export function sessionRowValues(state: SessionState): unknown[] {
  return [
    state.id,
    state.status,
    state.iteration,
    state.createdAt,
    state.updatedAt,
    state.finalContent ?? null,
    JSON.stringify(state.usage),
    state.error ? JSON.stringify(state.error) : null,
    JSON.stringify(state.archiveRefs),
    JSON.stringify(state.startedCalls ?? []),
    state.messages.length,
    'finalOutput' in state ? outputJson(state.finalOutput) : null,
    state.principal ?? null,
    state.budget ? JSON.stringify(state.budget) : null,
  ];
}

/** The JSON text of a typed final answer, as both SQL stores keep it (`null` stays JSON `null`). */
export function outputJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/**
 * The column values of a wait row, in the order both SQL stores insert them: session_id, id,
 * kind, status, created_at, expires_at, body (the wait as JSON text, kept as written).
 */
export function waitRowValues(wait: Wait): unknown[] {
  return [
    wait.sessionId,
    wait.id,
    wait.kind,
    wait.status,
    wait.createdAt,
    wait.expiresAt ?? null,
    JSON.stringify(wait),
  ];
}

/** The listing cursor after `wait`, as the memory store writes it: `sessionId\0waitId`. */
export function waitCursor(wait: Wait): string {
  return `${wait.sessionId}\u0000${wait.id}`;
}

/**
 * The WHERE clause of a wait listing in both SQL stores (`param(n)` writes the n-th
 * placeholder, from 1) and its values. Rows come after the cursor in (session_id, id) order;
 * the cursor is split here because PostgreSQL text cannot hold its NUL separator.
 */
export function waitListWhere(
  query: WaitQuery,
  param: (n: number) => string,
): { where: string; values: unknown[] } {
  const terms: string[] = [];
  const values: unknown[] = [];
  const next = (value: unknown) => param(values.push(value));
  if (query.sessionId !== undefined) terms.push(`session_id = ${next(query.sessionId)}`);
  if (query.kind !== undefined) terms.push(`kind = ${next(query.kind)}`);
  if (query.status !== undefined) terms.push(`status = ${next(query.status)}`);
  if (query.cursor !== undefined) {
    const cut = query.cursor.indexOf('\u0000');
    const [sessionId, waitId] =
      cut < 0 ? [query.cursor, ''] : [query.cursor.slice(0, cut), query.cursor.slice(cut + 1)];
    terms.push(`(session_id, id) > (${next(sessionId)}, ${next(waitId)})`);
  }
  return { where: terms.length > 0 ? `WHERE ${terms.join(' AND ')}` : '', values };
}
