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

interface Waiting {
  readonly approval: PendingApproval;
  readonly answer: (answer: ApprovalAnswer) => void;
}

/**
 * The studio's approver: a call the policy asks about waits in this queue (shown on the
 * approvals page, `approval.pending` on the event stream) until a person answers it with
 * `POST /api/approvals/:id`, or its run ends first (the signal aborts: the entry is removed
 * and `approval.resolved` says `cancelled`).
 */
export class ApprovalQueue implements StudioApprovals {
  readonly #waiting = new Map<string, Waiting>();

  constructor(private readonly events: StudioEventSink) {}

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

  #ask(request: AuthorizationRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    if (signal.aborted) return Promise.reject(abortedError('Approval', signal.reason));
    const approval: PendingApproval = { id: newId('approval'), request, createdAt: isoNow() };
    return new Promise<ApprovalAnswer>((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.#waiting.delete(approval.id)) return;
        this.events.publish({ kind: 'approval.resolved', id: approval.id, decision: 'cancelled' });
        reject(abortedError('Approval', signal.reason));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(approval.id, {
        approval,
        answer: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
      this.events.publish({ kind: 'approval.pending', approval });
    });
  }
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
