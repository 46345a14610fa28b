import type { Hono } from 'hono';
import { abortedError } from '../errors/index.js';
import type {
  ApprovalAnswer,
  Approver,
  AuthorizationRequest,
  DecisionKind,
} from '../policy/index.js';
import { isoNow, newId } from '../util/index.js';
import type { ApprovalAnswerBody, PendingApproval } from './api-types.js';
import type { StudioApprovals, StudioEventSink } from './studio-context.js';
import { StudioHttpError } from './error-response.js';
import { badField, readJsonObject } from './studio-json.js';

const DECISIONS: ReadonlySet<string> = new Set(['allow', 'deny', 'redirect']);
/** How long a call waits for a person by default: then it is denied. */
export const APPROVAL_TIMEOUT_MS = 30 * 60_000;

/** Options of {@link ApprovalQueue}. */
export interface ApprovalQueueOptions {
  /** How long a call waits for an answer before it is denied (default 30 minutes). */
  readonly timeoutMs?: number;
  /** The studio's shutdown: every waiting call is withdrawn when it aborts. */
  readonly shutdown?: AbortSignal;
}

interface Waiting {
  readonly approval: PendingApproval;
  readonly answer: (answer: ApprovalAnswer) => void;
}

/**
 * The studio's approver: a call the policy asks about waits in this queue (shown on the
 * approvals page, `approval.pending` on the event stream) until a person answers it with
 * `POST /api/approvals/:id`, or its run ends or the studio stops first (the entry is removed
 * and `approval.resolved` says `cancelled`), or nobody answers within the deadline (the call
 * is denied with a reason that says so, and `approval.resolved` says `deny`).
 */
export class ApprovalQueue implements StudioApprovals {
  readonly #waiting = new Map<string, Waiting>();
  readonly #timeoutMs: number;
  readonly #shutdown: AbortSignal | undefined;

  constructor(
    private readonly events: StudioEventSink,
    options: ApprovalQueueOptions = {},
  ) {
    this.#timeoutMs = options.timeoutMs ?? APPROVAL_TIMEOUT_MS;
    this.#shutdown = options.shutdown;
  }

  /** The approver to give the policy. */
  readonly approve: Approver = (request, signal) => this.#ask(request, signal);

  /** The calls waiting now, oldest first. */
  pending(): readonly PendingApproval[] {
    return [...this.#waiting.values()].map((w) => w.approval);
  }

  /** Answers a waiting call; fails with 404 `STUDIO_NOT_FOUND` when it is not waiting. */
  answer(id: string, body: ApprovalAnswerBody): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined)
      throw new StudioHttpError(
        404,
        'STUDIO_NOT_FOUND',
        `No approval '${id}' is waiting (it was answered or its run ended).`,
      );
    this.#waiting.delete(id);
    waiting.answer({
      decision: body.decision,
      ...(body.reason === undefined ? {} : { reason: body.reason }),
      ...(body.message === undefined ? {} : { message: body.message }),
    });
    this.events.publish({ kind: 'approval.resolved', id, decision: body.decision });
  }

  /** `GET /api/approvals` and `POST /api/approvals/:id`. */
  routes(app: Hono): void {
    app.get('/api/approvals', (c) => c.json(this.pending()));
    app.post('/api/approvals/:id', async (c) => {
      this.answer(c.req.param('id'), parseAnswer(await readJsonObject(c)));
      return c.json({ ok: true });
    });
  }

  #ask(request: AuthorizationRequest, callSignal: AbortSignal): Promise<ApprovalAnswer> {
    const signal =
      this.#shutdown === undefined ? callSignal : AbortSignal.any([callSignal, this.#shutdown]);
    if (signal.aborted) return Promise.reject(abortedError('Approval', signal.reason));
    const approval: PendingApproval = { id: newId('approval'), request, createdAt: isoNow() };
    return new Promise<ApprovalAnswer>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        settle();
        if (!this.#waiting.delete(approval.id)) return;
        this.events.publish({ kind: 'approval.resolved', id: approval.id, decision: 'cancelled' });
        reject(abortedError('Approval', signal.reason));
      };
      const timer = setTimeout(() => {
        settle();
        if (!this.#waiting.delete(approval.id)) return;
        resolve({
          decision: 'deny',
          reason: `Nobody answered the approval within ${describeMs(this.#timeoutMs)}, so the call was denied.`,
        });
        this.events.publish({ kind: 'approval.resolved', id: approval.id, decision: 'deny' });
      }, this.#timeoutMs);
      timer.unref();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(approval.id, {
        approval,
        answer: (answer) => {
          settle();
          resolve(answer);
        },
      });
      this.events.publish({ kind: 'approval.pending', approval });
    });
  }
}

/** `30 minutes`, `2 seconds`, `250 ms`: a deadline as a reason states it. */
function describeMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  if (ms % 1000 === 0) return `${ms / 1000} second${ms === 1000 ? '' : 's'}`;
  return `${ms} ms`;
}

function parseAnswer(body: Record<string, unknown>): ApprovalAnswerBody {
  const { decision, reason, message } = body;
  if (typeof decision !== 'string' || !DECISIONS.has(decision))
    throw badField('decision', "'allow', 'deny' or 'redirect'");
  if (reason !== undefined && typeof reason !== 'string') throw badField('reason', 'a string');
  if (message !== undefined && typeof message !== 'string') throw badField('message', 'a string');
  if (decision === 'redirect' && (typeof message !== 'string' || message.trim() === ''))
    throw badField('message', 'a non-empty instruction for a redirect');
  return {
    decision: decision as DecisionKind,
    ...(reason === undefined ? {} : { reason }),
    ...(message === undefined ? {} : { message }),
  };
}
