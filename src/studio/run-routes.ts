import type { Hono } from 'hono';
import type { ResumeRunResponse, StartRunBody } from './api-types.js';
import type { StudioContext } from './studio-context.js';
import { badField, readJsonObject } from './studio-json.js';
import type { StudioRuns } from './studio-runs.js';

/**
 * `POST /api/runs` (starts a run in the background and answers its session id at once; 409
 * `SESSION_ALREADY_RUNNING` while that session runs), `POST /api/runs/:sessionId/resume`
 * (continues a parked session here, once its waits are decided), `POST
 * /api/runs/:sessionId/cancel` and `GET /api/info`.
 */
export function runRoutes(runs: StudioRuns): (app: Hono, ctx: StudioContext) => void {
  return (app, ctx) => {
    app.get('/api/info', (c) => c.json(ctx.info));
    app.post('/api/runs', async (c) => {
      const sessionId = runs.start(parseStart(await readJsonObject(c)));
      return c.json({ sessionId });
    });
    app.post('/api/runs/:sessionId/resume', async (c) => {
      const sessionId = c.req.param('sessionId');
      await runs.resume(sessionId);
      return c.json({ sessionId } satisfies ResumeRunResponse);
    });
    app.post('/api/runs/:sessionId/cancel', (c) =>
      c.json({ cancelled: runs.cancel(c.req.param('sessionId')) }),
    );
  };
}

function parseStart(body: Record<string, unknown>): StartRunBody {
  const { prompt, sessionId, modelName } = body;
  if (typeof prompt !== 'string' || prompt.trim() === '')
    throw badField('prompt', 'a non-empty string');
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === ''))
    throw badField('sessionId', 'a non-empty string');
  if (modelName !== undefined && (typeof modelName !== 'string' || modelName === ''))
    throw badField('modelName', 'a non-empty string');
  return {
    prompt,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(modelName === undefined ? {} : { modelName }),
  };
}
