import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/index.js';
import { scriptedModel } from '../../src/model/index.js';
import type { ModelRequest, ScriptedTurnSpec } from '../../src/model/index.js';
import { errorResponse } from '../../src/studio/error-response.js';
import { startStudio } from '../../src/studio/index.js';
import type { PendingApproval, StudioEvent } from '../../src/studio/index.js';
import { runRoutes } from '../../src/studio/run-routes.js';
import { StudioRuns } from '../../src/studio/studio-runs.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { openEvents, signIn } from '../support/studio-client.js';
import { agentEventOf, eventData, pendingFor } from '../support/studio-events.js';

// How runs and their approvals end when nobody answers or the studio stops: a real studio, a
// real stdio MCP server, a scripted model that calls echo and then says done.

const turn = (request: ModelRequest): ScriptedTurnSpec =>
  request.messages[request.messages.length - 1]?.role === 'tool'
    ? { text: 'done' }
    : { toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'hi' } }] };

describe('approvals nobody answers', () => {
  it('deny the call at the deadline, saying so, and publish approval.resolved', async () => {
    const quick = await startStudio({
      model: scriptedModel(Array.from({ length: 4 }, () => turn)),
      mcpServers: { basic: stdioConfig('basic-server.mjs') },
      mcp: { strictConfig: true },
      allow: ['mcp_connect:basic'],
      approvalTimeoutMs: 300,
    });
    const c = await signIn(quick.url);
    const stream = await openEvents(c);
    try {
      const { sessionId } = (await c.post('/api/runs', { prompt: 'echo' })).json as {
        sessionId: string;
      };
      const pending = await stream.waitFor(pendingFor(sessionId, 'mcp__basic__echo'), 'approval');
      const id = (eventData(pending) as { approval: PendingApproval }).approval.id;
      const resolved = await stream.waitFor(
        (e) =>
          eventData(e).kind === 'approval.resolved' && (eventData(e) as { id: string }).id === id,
        'approval.resolved',
      );
      expect(eventData(resolved)).toEqual({ kind: 'approval.resolved', id, decision: 'deny' });
      await stream.waitFor(
        (e) =>
          eventData(e).kind === 'run.ended' &&
          (eventData(e) as { sessionId: string }).sessionId === sessionId,
        'run.ended',
      );
      const ofRun = stream.events.map(agentEventOf).filter((e) => e?.sessionId === sessionId);
      const decision = ofRun.find((e) => e?.type === 'tool.decision');
      expect(decision).toMatchObject({ decision: 'deny', stage: 'approval' });
      expect(JSON.stringify(decision)).toContain('Nobody answered the approval within 300 ms');
      expect(ofRun.find((e) => e?.type === 'tool.completed')).toMatchObject({
        errorCode: 'TOOL_DENIED',
      });
      expect((await c.get('/api/approvals')).json).toEqual([]);
    } finally {
      stream.close();
      await quick.close();
    }
  });

  it("are withdrawn by close(), a server's connection approval included", async () => {
    // without --allow mcp_connect:<server>, the startup connect waits for a person
    const closing = await startStudio({
      mcpServers: { project: stdioConfig('basic-server.mjs') },
      mcp: { strictConfig: true },
    });
    const c = await signIn(closing.url);
    const stream = await openEvents(c);
    try {
      const pending = await stream.waitFor(
        (e) =>
          eventData(e).kind === 'approval.pending' ||
          (eventData(e).kind === 'hello' &&
            (eventData(e) as Extract<StudioEvent, { kind: 'hello' }>).approvals.length > 0),
        'connection approval',
      );
      const d = eventData(pending);
      const approval =
        d.kind === 'hello' ? d.approvals[0]! : (d as { approval: PendingApproval }).approval;
      expect(approval.request.capability).toBe('mcp_connect:project');
      await closing.close();
      const withdrawn = await stream.waitFor(
        (e) =>
          eventData(e).kind === 'approval.resolved' &&
          (eventData(e) as { id: string }).id === approval.id,
        'approval.resolved',
      );
      expect(eventData(withdrawn)).toMatchObject({ decision: 'cancelled' });
    } finally {
      stream.close();
      await closing.close();
    }
  });
});

describe('StudioRuns while the studio closes', () => {
  it('refuses new runs with 503 ABORTED once close() has begun', async () => {
    const agent = createAgent({
      model: scriptedModel([{ text: 'hi' }]),
      mcp: { strictConfig: true },
    });
    const recorder = { publish: () => undefined };
    const runs = new StudioRuns(agent, recorder, true);
    const app = new Hono();
    runRoutes(runs)(app, { info: { version: 't', store: 'memory', apps: false } } as never);
    app.onError((err, ctx) => errorResponse(ctx, err));
    try {
      const closed = runs.close();
      const r = await app.request('/api/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'hi' }),
      });
      expect(r.status).toBe(503);
      expect(await r.json()).toMatchObject({
        error: { code: 'ABORTED', message: expect.stringContaining('shutting down') },
      });
      expect(runs.live()).toEqual([]);
      await closed;
    } finally {
      await agent.close();
    }
  });
});
