/** The one error answer of the studio's routes: status by code, nothing unplanned leaks. */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { McpError, MusterError, ToolError } from '../../src/index.js';
import type { StudioErrorBody } from '../../src/studio/api-types.js';
import { errorResponse, StudioHttpError } from '../../src/studio/error-response.js';

function answer(err: unknown): Promise<Response> {
  const app = new Hono();
  app.get('/x', (c) => errorResponse(c, err));
  return Promise.resolve(app.request('/x'));
}

describe('errorResponse', () => {
  it.each([
    [new MusterError('INVALID_CONFIGURATION', 'bad'), 400],
    [new ToolError('TOOL_ARGUMENTS_INVALID', 'bad args', { toolName: 't' }), 400],
    [new ToolError('TOOL_DENIED', 'no', { toolName: 't' }), 403],
    [new ToolError('TOOL_APPROVAL_REQUIRED', 'ask', { toolName: 't' }), 403],
    [new ToolError('TOOL_NOT_FOUND', 'none', { toolName: 't' }), 404],
    [new MusterError('REGISTRY_BUSY', 'busy'), 409],
    [new MusterError('WAIT_NOT_FOUND', 'decided already'), 404],
    [new MusterError('WAIT_STALE', 'changed since shown'), 409],
    [new McpError('MCP_CONNECTION_FAILED', 'down', { server: 's' }), 502],
    [new McpError('MCP_AUTH_REQUIRED', 'sign in', { server: 's' }), 502],
    [new ToolError('TOOL_EXECUTION_FAILED', 'failed', { toolName: 't' }), 502],
    [new MusterError('ABORTED', 'aborted'), 503],
  ])('%s is %i with its code and message', async (err, status) => {
    const r = await answer(err);
    expect(r.status).toBe(status);
    expect(await r.json()).toEqual({ error: { code: err.code, message: err.message } });
  });

  it('keeps a studio error’s status and extra fields', async () => {
    const r = await answer(
      new StudioHttpError(400, 'TOOL_ARGUMENTS_INVALID', 'fix a', {
        issues: [{ path: 'a', message: 'must be number' }],
      }),
    );
    expect(r.status).toBe(400);
    expect(((await r.json()) as StudioErrorBody).error.issues).toEqual([
      { path: 'a', message: 'must be number' },
    ]);
  });

  it('answers anything else as 500 INTERNAL_ERROR without its message', async () => {
    const r = await answer(new Error('secret-detail-123 at /home/user/file'));
    expect(r.status).toBe(500);
    const text = await r.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
    expect(text).not.toContain('secret-detail-123');
  });
});
