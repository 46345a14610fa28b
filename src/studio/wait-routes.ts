import type { Hono } from 'hono';
import type { TaskWaitHandle, Wait, WaitDecision, WaitKind, WaitQuery } from '../session/index.js';
import type { DecideWaitResponse, ParkedWait, TaskWaitView, WaitsResponse } from './api-types.js';
import type { StudioContext } from './studio-context.js';
import { badField, readJsonObject } from './studio-json.js';

const KINDS: ReadonlySet<string> = new Set<WaitKind>(['approval', 'elicitation', 'task', 'auth']);
const STATUSES: ReadonlySet<string> = new Set<Wait['status']>(['pending', 'decided']);

/**
 * The waits of parked runs (SPEC 15.1), read from the store whichever process parked them:
 * `GET /api/waits` lists them, `POST /api/waits/:sessionId/:waitId` decides one with
 * `agent.decide()`, bound to the fingerprint the page showed (`WAIT_STALE` when the stored
 * wait differs, `WAIT_NOT_FOUND` once decided, expired or gone) and tells every page
 * (`wait.decided`). The run goes on with `POST /api/runs/:sessionId/resume`.
 */
export function waitRoutes(app: Hono, ctx: StudioContext): void {
  app.get('/api/waits', async (c) => {
    const page = await ctx.agent.sessions.waits(parseQuery(c.req.query()));
    const now = Date.now();
    const body: WaitsResponse = {
      waits: page.waits.map((w) => waitView(w, now)),
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    };
    return c.json(body);
  });
  app.post('/api/waits/:sessionId/:waitId', async (c) => {
    const { fingerprint, decision } = parseDecision(await readJsonObject(c));
    const decided = await ctx.agent.decide(
      c.req.param('sessionId'),
      c.req.param('waitId'),
      decision,
      { fingerprint },
    );
    const wait = waitView(decided, Date.now());
    ctx.events.publish({ kind: 'wait.decided', wait });
    return c.json({ wait } satisfies DecideWaitResponse);
  });
}

/**
 * A stored wait as the page sees it: the listed fields only (never `requestState`, the
 * protocol state a server asked to be sent back, nor the answers stored with it), whether it
 * expired, a task wait's task and an auth wait's principal and issuer (an id and a URL of the
 * issuer, never a token, and never an authorization URL even if one were stored).
 */
function waitView(w: Wait, now: number): ParkedWait {
  const expired =
    w.status === 'pending' && w.expiresAt !== undefined && Date.parse(w.expiresAt) <= now;
  return {
    id: w.id,
    sessionId: w.sessionId,
    runId: w.runId,
    kind: w.kind,
    ...(w.callId === undefined ? {} : { callId: w.callId }),
    ...(w.toolName === undefined ? {} : { toolName: w.toolName }),
    ...(w.server === undefined ? {} : { server: w.server }),
    ...(w.arguments === undefined ? {} : { arguments: w.arguments }),
    ...(w.message === undefined ? {} : { message: w.message }),
    ...(w.requestedSchema === undefined ? {} : { requestedSchema: w.requestedSchema }),
    // a URL elicitation's own; an auth wait never shows one (a sign-in URL is fresh each time)
    ...(w.url === undefined || w.kind !== 'elicitation' ? {} : { url: w.url }),
    ...(w.principal === undefined ? {} : { principal: w.principal }),
    ...(w.issuer === undefined ? {} : { issuer: w.issuer }),
    ...(w.task === undefined ? {} : { task: taskView(w.task) }),
    createdAt: w.createdAt,
    ...(w.expiresAt === undefined ? {} : { expiresAt: w.expiresAt }),
    fingerprint: w.fingerprint,
    status: w.status,
    expired,
    ...(w.decision === undefined ? {} : { decision: w.decision }),
    ...(w.decidedAt === undefined ? {} : { decidedAt: w.decidedAt }),
  };
}

/** A task wait's handle as the page shows it, with the end of its ttl worked out. */
function taskView(t: TaskWaitHandle): TaskWaitView {
  const accepted = Date.parse(t.acceptedAt);
  const ends =
    t.ttlMs === null || Number.isNaN(accepted) ? undefined : new Date(accepted + t.ttlMs);
  return {
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage === undefined ? {} : { statusMessage: t.statusMessage }),
    createdAt: t.createdAt,
    acceptedAt: t.acceptedAt,
    ...(t.polledAt === undefined ? {} : { polledAt: t.polledAt }),
    ttlMs: t.ttlMs,
    ...(ends === undefined || Number.isNaN(ends.getTime())
      ? {}
      : { ttlEndsAt: ends.toISOString() }),
    ...(t.pollIntervalMs === undefined ? {} : { pollIntervalMs: t.pollIntervalMs }),
  };
}

function parseQuery(query: Record<string, string>): WaitQuery {
  const { kind, status, sessionId, cursor, limit } = query;
  if (kind !== undefined && !KINDS.has(kind))
    throw badField('kind', "'approval', 'elicitation', 'task' or 'auth'");
  if (status !== undefined && !STATUSES.has(status))
    throw badField('status', "'pending' or 'decided'");
  let size: number | undefined;
  if (limit !== undefined) {
    size = Number(limit);
    if (!/^\d+$/.test(limit) || size < 1 || size > 1000)
      throw badField('limit', 'a whole number from 1 to 1000');
  }
  return {
    ...(kind === undefined ? {} : { kind: kind as WaitKind }),
    ...(status === undefined ? {} : { status: status as Wait['status'] }),
    ...(sessionId ? { sessionId } : {}),
    ...(cursor ? { cursor } : {}),
    ...(size === undefined ? {} : { limit: size }),
  };
}

/**
 * The fingerprint and the decision of a decide body. The decision's shape is the store's to
 * check against the wait's kind (`INVALID_CONFIGURATION` naming what it takes).
 */
function parseDecision(body: Record<string, unknown>): {
  fingerprint: string;
  decision: WaitDecision;
} {
  const { fingerprint, ...decision } = body;
  if (typeof fingerprint !== 'string' || fingerprint === '')
    throw badField('fingerprint', 'the fingerprint of the wait as listed');
  if (!('decision' in decision) && !('action' in decision))
    throw badField(
      'decision',
      "'allow', 'deny' or 'redirect' (a task wait's: 'cancel'; or a form's 'action')",
    );
  return { fingerprint, decision: decision as unknown as WaitDecision };
}
