import type { Hono } from 'hono';
import { SessionError } from '../errors/index.js';
import type { SessionState, SessionSummary } from '../session/index.js';
import type { SessionSummaryView, SessionView, SessionsResponse } from './api-types.js';
import type { StudioContext } from './studio-context.js';

/** Sessions per page of `GET /api/sessions`. */
const PAGE = 50;
/** The most sessions read to sort them newest first. */
const MAX_SCANNED = 5_000;
const TITLE_CHARS = 200;

/**
 * `GET /api/sessions` (`?cursor=`): the store's sessions, newest change first, a page at a
 * time, each titled with its first user message; `GET /api/sessions/:id`: one session with
 * its messages as stored, inline image data left out.
 */
export function sessionRoutes(app: Hono, ctx: StudioContext): void {
  app.get('/api/sessions', async (c) => {
    const offset = Math.max(0, Number.parseInt(c.req.query('cursor') ?? '0', 10) || 0);
    const all = await listAll(ctx);
    const page = all.slice(offset, offset + PAGE);
    const sessions = await Promise.all(
      page.map(async (s) => summaryView(s, await ctx.agent.sessions.get(s.id))),
    );
    const body: SessionsResponse = {
      sessions,
      ...(offset + PAGE < all.length ? { nextCursor: String(offset + PAGE) } : {}),
    };
    return c.json(body);
  });
  app.get('/api/sessions/:id', async (c) => {
    const id = c.req.param('id');
    const state = await ctx.agent.sessions.get(id);
    if (state === undefined)
      throw new SessionError('SESSION_NOT_FOUND', `No session '${id}' in the studio's store.`, {
        sessionId: id,
      });
    const view: SessionView = {
      ...summaryView(state, state),
      messages: state.messages.map(withoutMedia),
      usage: { ...state.usage },
      ...(state.finalContent === undefined ? {} : { finalContent: state.finalContent }),
      ...(state.budget === undefined ? {} : { budget: state.budget }),
    };
    return c.json(view);
  });
}

async function listAll(ctx: StudioContext): Promise<SessionSummary[]> {
  const all: SessionSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.agent.sessions.list(cursor === undefined ? {} : { cursor });
    all.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor !== undefined && all.length < MAX_SCANNED);
  return all.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

function summaryView(
  s: Pick<SessionSummary, 'id' | 'status' | 'createdAt' | 'updatedAt'>,
  state: SessionState | undefined,
): SessionSummaryView {
  const title = state === undefined ? undefined : firstUserText(state);
  return {
    id: s.id,
    status: s.status,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    ...(title === undefined ? {} : { title: title.slice(0, TITLE_CHARS) }),
  };
}

function firstUserText(state: SessionState): string | undefined {
  for (const m of state.messages) {
    if (m.role !== 'user') continue;
    const text = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ');
    if (text !== '') return text;
  }
  return undefined;
}

/** A stored message for the page: inline image bytes are replaced by a note. */
function withoutMedia(message: SessionState['messages'][number]): Record<string, unknown> {
  if (message.role !== 'user') return { ...message };
  return {
    ...message,
    content: message.content.map((p) =>
      p.type === 'image' && p.data !== undefined
        ? { type: 'image', mimeType: p.mimeType, omitted: true }
        : p,
    ),
  };
}
