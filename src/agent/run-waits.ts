import { MusterError } from '../errors/index.js';
import type { ApprovalAnswer } from '../policy/index.js';
import type { SessionStore, SessionWriteOptions, Wait } from '../session/index.js';
import type { CallWaits, ToolCallOutcome, WaitedDecision } from '../tools/index.js';
import { isoNow, newId } from '../util/index.js';
import type { AgentEvent } from './events.js';

/** The default of `waits.ttlMs`: how long a wait may stay undecided (7 days). */
export const DEFAULT_WAIT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** How long waits last and what their expiry decides (SPEC 15.1). */
export interface WaitOptions {
  /** Milliseconds a wait may stay undecided (default 7 days). */
  readonly ttlMs?: number;
  /** What an expired approval decides at the next resume (default `deny`: `TOOL_DENIED`, reason `expired`). */
  readonly onExpiry?: 'deny' | 'cancel';
}

/** What a run's waits need of it. */
export interface RunWaitsContext {
  readonly sessionId: string;
  readonly runId: string;
  /** The run's (guarded) store. */
  readonly store: SessionStore;
  readonly options: WaitOptions | undefined;
  readonly emit: (event: AgentEvent) => void;
  /** The run's write options (its lease). */
  readonly writeOptions: () => SessionWriteOptions;
}

/**
 * One run's side of parking: the waits a resumed run found (decided, expired or still
 * pending), the decisions it applies to the calls that parked on them, and the waits its
 * calls park on now. A wait it took up is removed once the results it decided are committed.
 */
export class RunWaits implements CallWaits {
  readonly canPark: boolean;
  /** The waits this run parked on, in the order its calls parked. */
  readonly parked: Wait[] = [];
  readonly #ctx: RunWaitsContext;
  /** The waits found when the run started, by the call they hold. */
  readonly #byCall = new Map<string, Wait>();
  readonly #taken = new Set<string>();

  /** The waits the session held when the run opened it. */
  readonly found: readonly Wait[];

  private constructor(ctx: RunWaitsContext, found: readonly Wait[]) {
    this.#ctx = ctx;
    this.canPark = ctx.store.waits !== undefined;
    this.found = found;
    for (const wait of found) if (wait.callId !== undefined) this.#byCall.set(wait.callId, wait);
  }

  /**
   * Removes the waits the run found from the store (under its lease), before the calls they
   * hold run again; their decisions stay with this run. A call whose wait is gone and whose
   * result was never committed is then an unknown outcome for a later resume, never a second
   * run of an approved call.
   */
  async takeUp(): Promise<void> {
    const waits = this.#ctx.store.waits;
    if (!waits || this.found.length === 0) return;
    await waits.remove(
      this.#ctx.sessionId,
      this.found.map((w) => w.id),
      this.#ctx.writeOptions(),
    );
  }

  /** The waits of a run: those its session holds (a resumed run takes them up). */
  static async open(ctx: RunWaitsContext): Promise<RunWaits> {
    return new RunWaits(ctx, await sessionWaits(ctx.store, ctx.sessionId));
  }

  /** The ids of the calls that parked and wait to be run again. */
  get waitingCalls(): ReadonlySet<string> {
    return new Set(this.#byCall.keys());
  }

  decisionFor(callId: string, fingerprint: string): WaitedDecision | undefined {
    const wait = this.#byCall.get(callId);
    if (!wait || this.#taken.has(wait.id)) return undefined;
    this.#taken.add(wait.id);
    const { sessionId, runId } = this.#ctx;
    const expired = wait.status === 'pending' && isExpired(wait, Date.now());
    const base = {
      timestamp: isoNow(),
      sessionId,
      runId,
      waitId: wait.id,
      callId,
      kind: wait.kind,
    };
    if (wait.fingerprint !== fingerprint) {
      // the call, its tool or the policy changed: this decision is void, a fresh wait follows
      this.#ctx.emit({
        type: 'wait.decided',
        ...base,
        applied: false,
        expired,
        ...decisionOf(wait),
      });
      return undefined;
    }
    if (wait.status === 'decided' && wait.decision && 'decision' in wait.decision) {
      this.#ctx.emit({
        type: 'wait.decided',
        ...base,
        applied: true,
        expired: false,
        ...decisionOf(wait),
      });
      const d = wait.decision;
      const answer: ApprovalAnswer = {
        decision: d.decision,
        ...(d.reason !== undefined ? { reason: d.reason } : {}),
        ...(d.message !== undefined ? { message: d.message } : {}),
      };
      return {
        answer,
        waitId: wait.id,
        ...(d.reason !== undefined ? { reason: d.reason } : {}),
        ...(wait.decidedAt !== undefined ? { decidedAt: wait.decidedAt } : {}),
      };
    }
    if (expired) {
      this.#ctx.emit({ type: 'wait.decided', ...base, applied: true, expired: true });
      const reason = this.#ctx.options?.onExpiry === 'cancel' ? 'expired; cancelled' : 'expired';
      return { answer: { decision: 'deny', reason }, waitId: wait.id, reason };
    }
    return undefined;
  }

  /** Stores the wait of a call that parked and reports it (`wait.created`). */
  async park(outcome: ToolCallOutcome): Promise<Wait> {
    const parked = outcome.parked!;
    const { sessionId, runId, store } = this.#ctx;
    if (!store.waits)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'The session store keeps no waits (SessionStore.waits): the call cannot park.',
      );
    const now = Date.now();
    const ttl = this.#ctx.options?.ttlMs ?? DEFAULT_WAIT_TTL_MS;
    const wait: Wait = {
      id: newId('wait'),
      sessionId,
      runId,
      kind: 'approval',
      callId: outcome.callId,
      toolName: outcome.toolName,
      ...(parked.server !== undefined ? { server: parked.server } : {}),
      arguments: parked.arguments,
      ...(parked.reason !== undefined ? { message: parked.reason } : {}),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttl).toISOString(),
      fingerprint: parked.fingerprint,
      status: 'pending',
    };
    await store.waits.put(wait, this.#ctx.writeOptions());
    this.parked.push(wait);
    this.#ctx.emit({ type: 'wait.created', timestamp: isoNow(), sessionId, runId, wait });
    return wait;
  }

  /** Forgets the waits this run took up: their calls have results (or fresh waits) by now. */
  settle(): void {
    for (const [callId, wait] of this.#byCall)
      if (this.#taken.has(wait.id)) this.#byCall.delete(callId);
    this.#taken.clear();
  }
}

/** Every wait a session holds (all pages). */
export async function sessionWaits(store: SessionStore, sessionId: string): Promise<Wait[]> {
  const waits = store.waits;
  if (!waits) return [];
  const all: Wait[] = [];
  let cursor: string | undefined;
  do {
    const page = await waits.list({ sessionId, limit: 1000, ...(cursor ? { cursor } : {}) });
    all.push(...page.waits);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

/** True when `wait` is past its `expiresAt` at `now`. */
export function isExpired(wait: Wait, now: number): boolean {
  return wait.expiresAt !== undefined && Date.parse(wait.expiresAt) <= now;
}

/** The open waits of a session when it is parked (none when it is not parked). */
export async function openWaitsOfParked(store: SessionStore, sessionId: string): Promise<Wait[]> {
  const session = await store.get(sessionId);
  if (session?.status !== 'parked') return [];
  return openWaits(await sessionWaits(store, sessionId), Date.now());
}

/** The waits that still hold a session: pending and not expired. */
export function openWaits(waits: readonly Wait[], now: number): Wait[] {
  return waits.filter((w) => w.status === 'pending' && !isExpired(w, now));
}

function decisionOf(wait: Wait): { decision?: NonNullable<Wait['decision']> } {
  return wait.decision ? { decision: wait.decision } : {};
}
