import { createHash } from 'node:crypto';
import type { ModelMessage } from '../model/index.js';
import type { SummaryMemo } from './summarize-strategy.js';

/** How many sessions' summaries a {@link SummaryMemos} keeps (least recently used go first). */
export const SUMMARY_MEMO_SESSIONS = 1_000;

interface SessionMemo {
  readonly memo: SummaryMemo;
  /** A digest of the messages the summary covers, to check a later run's transcript. */
  readonly digest: string;
}

/**
 * The latest summary of each session, so the first over-limit request of a later run reuses
 * it instead of calling the summarizer again. Within a run it is trusted for the run's
 * transcript array (append-only); for a new array (the next run) it is reused only when the
 * messages it covers are unchanged (same digest), so a session deleted and created again, or
 * whose stored messages differ from what was summarized (media), is summarized afresh.
 */
export class SummaryMemos {
  readonly #sessions = new Map<string, SessionMemo>();
  readonly #checked = new WeakMap<readonly ModelMessage[], SummaryMemo>();
  readonly #capacity: number;

  constructor(capacity = SUMMARY_MEMO_SESSIONS) {
    this.#capacity = capacity;
  }

  /** The summary that may be reused for `transcript` of `sessionId`, if any. */
  get(sessionId: string, transcript: readonly ModelMessage[]): SummaryMemo | undefined {
    const known = this.#checked.get(transcript);
    if (known) return known;
    const entry = this.#sessions.get(sessionId);
    if (!entry) return undefined;
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, entry);
    if (digestOf(transcript, entry.memo.covered) !== entry.digest) return undefined;
    this.#checked.set(transcript, entry.memo);
    return entry.memo;
  }

  /** Remembers the summary sent for `transcript` of `sessionId`. */
  set(sessionId: string, transcript: readonly ModelMessage[], memo: SummaryMemo): void {
    if (this.#checked.get(transcript) === memo && this.#sessions.has(sessionId)) return;
    this.#checked.set(transcript, memo);
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, { memo, digest: digestOf(transcript, memo.covered) });
    while (this.#sessions.size > this.#capacity) {
      const oldest = this.#sessions.keys().next().value as string;
      this.#sessions.delete(oldest);
    }
  }

  /** How many sessions have a summary remembered. */
  get size(): number {
    return this.#sessions.size;
  }
}

function digestOf(transcript: readonly ModelMessage[], covered: ReadonlySet<number>): string {
  const hash = createHash('sha256');
  for (const i of [...covered].sort((a, b) => a - b)) {
    const m = transcript[i];
    if (m === undefined) return '';
    hash.update(`${i}:${JSON.stringify(m)}\n`);
  }
  return hash.digest('hex');
}
