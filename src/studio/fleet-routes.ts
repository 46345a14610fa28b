import type { Hono } from 'hono';
import { agentSessionStore } from '../agent/index.js';
import { isFleetStore } from '../session/index.js';
import type { FleetState, SessionStore, WaitKind } from '../session/index.js';
import type { FleetResponse, FleetSessionView } from './api-types.js';
import type { StudioContext } from './studio-context.js';
import { badField } from './studio-json.js';

/** Sessions per state the view lists. */
const PER_STATE = 100;
/** Pages of pending waits read to show what parked sessions wait on (another store). */
const WAIT_PAGES = 5;
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
 * parked sessions with the kinds of their pending waits.
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
    const parked = await page('parked');
    const kinds = parked.length === 0 ? new Map() : await pendingKinds(ctx);
    for (const s of parked)
      sessions.push({
        sessionId: s.id,
        state: 'parked',
        status: s.status,
        updatedAt: s.updatedAt,
        pendingWaits: kinds.get(s.id) ?? [],
      });
  }
  return { sessions, truncated };
}

/** The kinds of the pending, unexpired waits of every session, by session (a few pages). */
async function pendingKinds(ctx: StudioContext): Promise<Map<string, WaitKind[]>> {
  const by = new Map<string, WaitKind[]>();
  const now = Date.now();
  let cursor: string | undefined;
  for (let i = 0; i < WAIT_PAGES; i++) {
    const found = await ctx.agent.sessions.waits({
      status: 'pending',
      limit: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const w of found.waits) {
      if (w.expiresAt !== undefined && Date.parse(w.expiresAt) <= now) continue;
      by.set(w.sessionId, [...(by.get(w.sessionId) ?? []), w.kind]);
    }
    cursor = found.nextCursor;
    if (cursor === undefined) break;
  }
  return by;
}
