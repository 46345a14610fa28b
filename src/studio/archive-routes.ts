import type { Hono } from 'hono';
import type { ArchiveListResponse, ArchivePageResponse } from './api-types.js';
import { StudioHttpError } from './error-response.js';
import { guarded, param } from './route-input.js';
import type { StudioContext } from './studio-context.js';

/** The most bytes one page of `GET /api/sessions/:id/archive/:ref` returns (and the default). */
export const ARCHIVE_PAGE_BYTES = 65536;

function byteCount(value: string | undefined, field: string, min: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (Number.isSafeInteger(n) && n >= min) return n;
  throw new StudioHttpError(
    400,
    'STUDIO_BAD_REQUEST',
    `'${field}' must be a whole number of bytes, at least ${min}: got ${JSON.stringify(value)}.`,
  );
}

/**
 * `GET /api/sessions/:id/archive` (`?callId=`): a session's archived items, no payloads;
 * `GET /api/sessions/:id/archive/:ref?offset=&length=`: one page of one of them. A ref is
 * known only in its own session: any other (or an unknown one) is 404 `STUDIO_NOT_FOUND`.
 */
export function archiveRoutes(app: Hono, ctx: StudioContext): void {
  app.get(
    '/api/sessions/:id/archive',
    guarded(async (c) => {
      const sessionId = param(c, 'id');
      const callId = c.req.query('callId');
      const items = await ctx.agent.sessions.listArchive(sessionId, callId || undefined);
      return c.json({
        items: items.map((i) => ({ ...i, sessionId })),
      } satisfies ArchiveListResponse);
    }),
  );
  app.get(
    '/api/sessions/:id/archive/:ref',
    guarded(async (c) => {
      const sessionId = param(c, 'id');
      const ref = param(c, 'ref');
      const offset = byteCount(c.req.query('offset'), 'offset', 0);
      const length = Math.min(
        byteCount(c.req.query('length'), 'length', 1) ?? ARCHIVE_PAGE_BYTES,
        ARCHIVE_PAGE_BYTES,
      );
      const page = await ctx.agent.sessions.readArchive(sessionId, ref, {
        ...(offset !== undefined ? { offset } : {}),
        length,
      });
      if (page === undefined)
        throw new StudioHttpError(
          404,
          'STUDIO_NOT_FOUND',
          `Session '${sessionId}' has no archived item ${JSON.stringify(ref.slice(0, 80))}: use a ref from a result of this session.`,
        );
      const { nextOffset, ...rest } = page;
      return c.json({
        ...rest,
        ...(nextOffset !== null ? { nextOffset } : {}),
      } satisfies ArchivePageResponse);
    }),
  );
}
