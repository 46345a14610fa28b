import type { Hono } from 'hono';
import { agentSessionStore } from '../agent/index.js';
import { isFleetStore } from '../session/index.js';
import type { FleetState, SessionStore, WaitKind } from '../session/index.js';
import type { FleetResponse, FleetSessionView } from './api-types.js';
import type { StudioContext } from './studio-context.js';
import { badField } from './studio-json.js';

/** Sessions per state the view lists. */
const PER_STATE = 100;
/** Pending waits read per parked session (another store); past that `truncated`. */
const WAITS_PER_SESSION = 1000;
const STATES: ReadonlySet<string> = new Set<FleetState>(['queued', 'running', 'parked']);

/**
 * `GET /api/fleet?state=`: where the store's sessions stand across processes (SPEC 15.5). The
 * PostgreSQL store says it in one read-only snapshot of its leases, its waits and the
 * workers' pg-boss queue (`ctx.fleet`: never written, and no queue yet is no error); any
 * other store is read through the agent: its running and parked sessions, nothing queued.
 */
export function fleetRoutes(app: Hono, ctx: StudioContext): void {
  app.get('/api/fleet', async (c) => {
    const state = c.req.query('state') || undefined;
    if (state !== undefined && !STATES.has(state))
      throw badField('state', "'queued', 'running' or 'parked'");
    const wanted = state as FleetState | undefined;
    const store = agentSessionStore(ctx.agent);
    if (isFleetStore(store)) {
      const view = await store.fleet({
        jobs: ctx.fleet,
        limit: PER_STATE,
        ...(wanted === undefined ? {} : { state: wanted }),
      });
      const body: FleetResponse = {
        sessions: view.sessions,
        queue: { name: ctx.fleet.queue, schema: ctx.fleet.schema, found: view.queueFound },
        truncated: view.truncated,
      };
      return c.json(body);
    }
    return c.json(await storeFleet(ctx, store, wanted));
  });
}

/**
 * The fleet of a store that cannot say it itself (memory, SQLite): no queue, so nothing is
 * queued; running sessions that a live lease holds (their holder is not known here), and
 * parked sessions with the kinds of their pending waits, read for the listed sessions only.
 */
async function storeFleet(
  ctx: StudioContext,
  store: SessionStore,
  state: FleetState | undefined,
): Promise<FleetResponse> {
  const sessions: FleetSessionView[] = [];
  let truncated = false;
  const page = async (status: 'running' | 'parked') => {
    const found = await ctx.agent.sessions.list({ status, limit: PER_STATE + 1 });
    if (found.sessions.length > PER_STATE || found.nextCursor !== undefined) truncated = true;
    return found.sessions.slice(0, PER_STATE);
  };
  if (state === undefined || state === 'running') {
    const leased = store.leased?.bind(store);
    for (const s of await page('running')) {
      // `running` with no live lease is a run that died: nobody runs it
      if (leased && !(await leased(s.id))) continue;
      sessions.push({
        sessionId: s.id,
        state: 'running',
        status: s.status,
        updatedAt: s.updatedAt,
      });
    }
  }
  if (state === undefined || state === 'parked') {
    for (const s of await page('parked')) {
      const pending = await pendingKinds(ctx, s.id);
      if (pending.cut) truncated = true;
      sessions.push({
        sessionId: s.id,
        state: 'parked',
        status: s.status,
        updatedAt: s.updatedAt,
        pendingWaits: pending.kinds,
      });
    }
  }
  return { sessions, truncated };
}

/**
 * The kinds of the pending, unexpired waits of one session (its first
 * {@link WAITS_PER_SESSION}; `cut` when it has more).
 */
async function pendingKinds(
  ctx: StudioContext,
  sessionId: string,
): Promise<{ kinds: WaitKind[]; cut: boolean }> {
  const now = Date.now();
  const found = await ctx.agent.sessions.waits({
    sessionId,
    status: 'pending',
    limit: WAITS_PER_SESSION,
  });
  const kinds = found.waits
    .filter((w) => w.expiresAt === undefined || Date.parse(w.expiresAt) > now)
    .map((w) => w.kind);
  return { kinds, cut: found.nextCursor !== undefined };
}
