import type { Hono } from 'hono';
import { abortedError } from '../errors/index.js';
import type {
  McpElicitationAnswer,
  McpElicitationHandler,
  McpElicitationRequest,
  McpRequestOrigin,
} from '../mcp/index.js';
import { validateJsonSchema } from '../tools/index.js';
import type { JsonSchema } from '../tools/index.js';
import { isoNow, newId } from '../util/index.js';
import type { ElicitationAnswerBody, PendingElicitation } from './api-types.js';
import type { StudioElicitations, StudioEventSink } from './studio-context.js';
import { StudioHttpError } from './error-response.js';
import { badField, readJsonObject } from './studio-json.js';

const ACTIONS: ReadonlySet<string> = new Set(['accept', 'decline', 'cancel']);

interface Waiting {
  readonly elicitation: PendingElicitation;
  readonly answer: (answer: McpElicitationAnswer) => void;
}

/**
 * The studio's elicitation handler: a server's question waits in this queue (the elicitations
 * page, `elicitation.pending` on the event stream) until a person answers it with
 * `POST /api/elicitations/:id`, or the request ends first (its signal aborts: the entry is
 * removed and `elicitation.resolved` says `cancelled`). An accepted form answer is checked
 * against the server's `requestedSchema` here too (the page checks it first): one that does
 * not match is refused with 400 `ELICITATION_CONTENT_INVALID` and `issues`, and stays waiting.
 */
export class ElicitationQueue implements StudioElicitations {
  readonly #waiting = new Map<string, Waiting>();

  constructor(private readonly events: StudioEventSink) {}

  /** The handler to give `mcp.handlers.elicitation`. */
  readonly handle: McpElicitationHandler = (request, origin) => this.#ask(request, origin);

  /** The questions waiting now, oldest first. */
  pending(): readonly PendingElicitation[] {
    return [...this.#waiting.values()].map((w) => w.elicitation);
  }

  /** Answers a waiting question (see the class comment for what is refused). */
  async answer(id: string, body: ElicitationAnswerBody): Promise<void> {
    const waiting = this.#find(id);
    const { elicitation } = waiting;
    let answer: McpElicitationAnswer = { action: body.action };
    if (body.action === 'accept' && elicitation.mode === 'form') {
      if (body.content === undefined) throw badField('content', 'an object when accepting a form');
      const schema = (elicitation.requestedSchema ?? { type: 'object' }) as JsonSchema;
      const outcome = await validateJsonSchema(schema, body.content, 're2'); // a server's form
      if (!outcome.success) {
        const issues = outcome.issues.map((i) => ({
          path: i.path.map(String).join('.'),
          message: i.message,
        }));
        throw new StudioHttpError(
          400,
          'ELICITATION_CONTENT_INVALID',
          `The answer does not match the form the server asked for: ${issues.map((i) => `${i.path === '' ? '(answer)' : i.path} ${i.message}`).join('; ')}.`,
          { issues },
        );
      }
      answer = { action: 'accept', content: body.content };
    }
    // validation awaited: the question may have been answered or cancelled meanwhile
    this.#find(id);
    this.#waiting.delete(id);
    waiting.answer(answer);
    this.events.publish({ kind: 'elicitation.resolved', id, action: body.action });
  }

  /** `GET /api/elicitations` and `POST /api/elicitations/:id`. */
  routes(app: Hono): void {
    app.get('/api/elicitations', (c) => c.json(this.pending()));
    app.post('/api/elicitations/:id', async (c) => {
      await this.answer(c.req.param('id'), parseAnswer(await readJsonObject(c)));
      return c.json({ ok: true });
    });
  }

  #find(id: string): Waiting {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined)
      throw new StudioHttpError(
        404,
        'STUDIO_NOT_FOUND',
        `No elicitation '${id}' is waiting (it was answered or its request ended).`,
      );
    return waiting;
  }

  #ask(request: McpElicitationRequest, origin: McpRequestOrigin): Promise<McpElicitationAnswer> {
    const { signal } = origin;
    if (signal.aborted) return Promise.reject(abortedError('Elicitation', signal.reason));
    const elicitation: PendingElicitation = {
      id: newId('elicitation'),
      server: request.server,
      mode: request.mode,
      message: request.message,
      ...(request.requestedSchema === undefined
        ? {}
        : { requestedSchema: request.requestedSchema }),
      ...(request.url === undefined ? {} : { url: request.url }),
      ...(origin.sessionId === undefined ? {} : { sessionId: origin.sessionId }),
      createdAt: isoNow(),
    };
    return new Promise<McpElicitationAnswer>((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.#waiting.delete(elicitation.id)) return;
        this.events.publish({
          kind: 'elicitation.resolved',
          id: elicitation.id,
          action: 'cancelled',
        });
        reject(abortedError('Elicitation', signal.reason));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(elicitation.id, {
        elicitation,
        answer: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
      this.events.publish({ kind: 'elicitation.pending', elicitation });
    });
  }
}

function parseAnswer(body: Record<string, unknown>): ElicitationAnswerBody {
  const { action, content } = body;
  if (typeof action !== 'string' || !ACTIONS.has(action))
    throw badField('action', "'accept', 'decline' or 'cancel'");
  if (
    content !== undefined &&
    (typeof content !== 'object' || content === null || Array.isArray(content))
  )
    throw badField('content', 'a JSON object');
  return {
    action: action as ElicitationAnswerBody['action'],
    ...(content === undefined ? {} : { content: content as Record<string, unknown> }),
  };
}
