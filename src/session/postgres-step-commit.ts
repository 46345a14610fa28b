import type { SessionPatch, SessionWriteOptions } from './session-store.js';
import type { SessionUpdateResult } from './session-event-log.js';
import { heldError, leaseLostError, notFoundError } from './session-rules.js';
import { outputJson } from './stored-rows.js';

/** What the step commit statement reports. */
interface StepCommitRow {
  readonly updated: number;
  readonly passed: boolean;
  readonly found: boolean;
  readonly steering: boolean;
  /** The session's `event_seq` before the commit (a bigint as text); null when refused. */
  readonly event_before: string | null;
}

/** The keys of `Usage` a commit sums (any other key a model client reports is not stored). */
const REQUIRED_USAGE_KEYS = ['inputTokens', 'outputTokens', 'totalTokens'] as const;
const USAGE_KEYS = [
  ...REQUIRED_USAGE_KEYS,
  'reasoningTokens',
  'cachedInputTokens',
  'cacheWriteInputTokens',
  'costUsd',
] as const;

/** One usage figure of `source` (a jsonb expression) as numeric: 0 when absent or not a number. */
function usageTerm(source: string): string {
  return `(CASE WHEN jsonb_typeof(${source}->k) = 'number' THEN (${source}->>k)::numeric ELSE 0 END)`;
}

/**
 * The step commit of `PostgresSessionStore.update` as ONE statement (one round trip): a
 * data-modifying CTE that share-locks the lease row and checks the fence, updates the session
 * row (usage summed in SQL, the known `Usage` keys only, as numeric so a fractional figure
 * such as `costUsd` adds up exactly; counts moved on; the run's budget replaced or cleared), inserts the
 * message rows and the event rows after it (numbered from the row's `event_seq` under its row
 * lock: the store hands out `seq`), trims the event log, notifies watchers (delivered at
 * commit) and reports whether steering waits and the first `seq` given. A write whose lease is
 * stale changes no row: the session update is guarded by the fence, and every insert reads the
 * updated row. The statement is prepared once per connection (`name`).
 */
export class PostgresStepCommit {
  readonly #text: string;
  readonly #name: string;
  readonly #channel: string;
  readonly #max: number;

  /** `channel` is the NOTIFY channel of the schema's event log. */
  constructor(quotedSchema: string, schema: string, channel: string, max: number) {
    const s = quotedSchema;
    this.#name = `muster_step_commit_${schema}`;
    this.#channel = channel;
    this.#max = max;
    this.#text = `WITH l AS (
        SELECT token, owner, (owner IS NOT NULL AND expires_at > now()) AS live
        FROM ${s}.muster_leases WHERE session_id = $1 FOR SHARE
      ), fence AS (
        SELECT CASE WHEN $2::bigint IS NULL THEN NOT EXISTS (SELECT 1 FROM l WHERE live)
          ELSE EXISTS (SELECT 1 FROM l WHERE live AND token = $2::bigint) END AS passed
      ), u AS (
        UPDATE ${s}.muster_sessions SET
          status = COALESCE($3, status), iteration = COALESCE($4, iteration),
          final_content = COALESCE($5, final_content),
          usage = CASE WHEN $6::jsonb IS NULL THEN usage ELSE (
            SELECT jsonb_object_agg(k, ${usageTerm('usage')} + ${usageTerm('$6::jsonb')})
            FROM unnest(ARRAY[${USAGE_KEYS.map((k) => `'${k}'`).join(', ')}]) AS k
            WHERE k IN (${REQUIRED_USAGE_KEYS.map((k) => `'${k}'`).join(', ')})
              OR usage ? k OR $6::jsonb ? k) END,
          error = CASE WHEN $7 THEN $8::jsonb ELSE error END,
          archive_refs = archive_refs || $9::jsonb, started_calls = started_calls || $10::jsonb,
          message_count = message_count + $11, updated_at = $13,
          final_output = CASE WHEN $14 THEN $15 ELSE final_output END,
          event_seq = event_seq + $18::bigint, budget = CASE WHEN $21 THEN $22 ELSE budget END
        WHERE id = $1 AND (SELECT passed FROM fence)
        RETURNING message_count - $11 AS first_message, event_seq - $18::bigint AS event_before
      ), m AS (
        INSERT INTO ${s}.muster_messages (session_id, seq, body, lease_token, lease_owner)
        SELECT $1, u.first_message + t.i - 1, t.m,
          (SELECT token FROM l WHERE $2::bigint IS NOT NULL),
          (SELECT owner FROM l WHERE $2::bigint IS NOT NULL)
        FROM u, jsonb_array_elements($12::jsonb) WITH ORDINALITY AS t(m, i)
      ), e AS (
        INSERT INTO ${s}.muster_events (session_id, seq, type, body)
        SELECT $1, u.event_before + ev.i, ev.type,
          '{"seq":' || (u.event_before + ev.i)::text || ',' || substr(ev.body, 2)
        FROM u, unnest($16::text[], $17::text[]) WITH ORDINALITY AS ev(type, body, i)
        WHERE ev.i > $18::bigint - $19::bigint
      ), d AS (
        DELETE FROM ${s}.muster_events
        WHERE session_id = $1 AND $18::bigint > 0
          AND seq <= (SELECT event_before FROM u) + $18::bigint - $19::bigint
      ), n AS (
        SELECT pg_notify($20, $1) FROM u WHERE $18::bigint > 0
      )
      SELECT (SELECT count(*) FROM u)::int AS updated, (SELECT passed FROM fence) AS passed,
        EXISTS (SELECT 1 FROM ${s}.muster_sessions WHERE id = $1) AS found,
        EXISTS (SELECT 1 FROM ${s}.muster_steering WHERE session_id = $1) AS steering,
        (SELECT event_before FROM u) AS event_before,
        (SELECT count(*) FROM n)::int AS notified`;
  }

  /** The statement for one patch. */
  statement(
    sessionId: string,
    patch: SessionPatch,
    options: SessionWriteOptions | undefined,
  ): { name: string; text: string; values: unknown[] } {
    const messages = patch.appendMessages ?? [];
    const events = patch.appendEvents ?? [];
    return {
      name: this.#name,
      text: this.#text,
      values: [
        sessionId,
        options?.lease?.token ?? null,
        patch.status ?? null,
        patch.iteration ?? null,
        patch.finalContent ?? null,
        patch.addUsage ? JSON.stringify(patch.addUsage) : null,
        patch.error !== undefined,
        patch.error ? JSON.stringify(patch.error) : null,
        JSON.stringify(patch.appendArchiveRefs ?? []),
        JSON.stringify(patch.appendStartedCalls ?? []),
        messages.length,
        JSON.stringify(messages),
        new Date().toISOString(),
        patch.finalOutput !== undefined,
        patch.finalOutput ? outputJson(patch.finalOutput.value) : null,
        events.map((e) => e.type),
        events.map((e) => e.json),
        events.length,
        this.#max,
        this.#channel,
        patch.budget !== undefined,
        patch.budget ? JSON.stringify(patch.budget) : null,
      ],
    };
  }

  /** The commit's outcome, or its typed refusal (nothing was written then). */
  outcome(
    sessionId: string,
    options: SessionWriteOptions | undefined,
    row: StepCommitRow,
    events: number,
  ): SessionUpdateResult {
    if (row.updated === 1)
      return events > 0
        ? { steeringPending: row.steering, firstEventSeq: Number(row.event_before) + 1 }
        : { steeringPending: row.steering };
    if (!row.passed)
      throw options?.lease?.token === undefined ? heldError(sessionId) : leaseLostError(sessionId);
    throw notFoundError(sessionId);
  }
}

export type { StepCommitRow };
