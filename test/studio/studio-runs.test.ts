import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelError } from '../../src/errors/index.js';
import { scriptedModel } from '../../src/model/index.js';
import type { ModelRequest, ScriptedTurnSpec } from '../../src/model/index.js';
import { startStudio } from '../../src/studio/index.js';
import type { AgentEvent } from '../../src/agent/index.js';
import type { CallToolResponse } from '../../src/studio/api-types.js';
import type { PendingApproval, RunningStudio, StudioEvent } from '../../src/studio/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { openEvents, signIn } from '../support/studio-client.js';
import { agentEventOf, eventData, pendingFor } from '../support/studio-events.js';
import type { SseReader, StudioClient } from '../support/studio-client.js';

// A run started over the studio's API, its approvals answered over the API, its events seen
// on the event stream: a real studio, a real stdio MCP server, a scripted model.

/** The model: the prompt names the calls of its first turn; after the results it says done. */
function turn(request: ModelRequest): ScriptedTurnSpec {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'tool') return { text: 'done' };
  const prompt =
    last?.role === 'user' && last.content[0]?.type === 'text' ? last.content[0].text : '';
  if (prompt.includes('fail')) throw new ModelError('MODEL_RESPONSE_INVALID', 'The model is down.');
  const calls = [];
  if (prompt.includes('echo')) calls.push({ name: 'mcp__basic__echo', arguments: { text: 'hi' } });
  if (prompt.includes('add')) calls.push({ name: 'mcp__basic__add', arguments: { a: 1, b: 2 } });
  return calls.length > 0 ? { toolCalls: calls } : { text: 'nothing to do' };
}

let studio: RunningStudio;
let client: StudioClient;
let events: SseReader;

beforeAll(async () => {
  studio = await startStudio({
    model: scriptedModel(Array.from({ length: 40 }, () => turn)),
    mcpServers: { basic: stdioConfig('basic-server.mjs') },
    mcp: { strictConfig: true },
    allow: ['mcp_connect:basic'],
  });
  client = await signIn(studio.url);
  events = await openEvents(client);
});
afterAll(async () => {
  events?.close();
  await studio?.close();
});

describe('a run started from the studio', () => {
  it('starts with hello, asks for approvals on the stream, and runs what was allowed only', async () => {
    const hello = await events.waitFor((e) => e.event === 'hello', 'hello');
    expect(eventData(hello)).toEqual({ kind: 'hello', approvals: [], elicitations: [], runs: [] });

    const started = await client.post('/api/runs', { prompt: 'echo and add' });
    expect(started.status).toBe(200);
    const { sessionId } = started.json as { sessionId: string };

    const echo = await events.waitFor(pendingFor(sessionId, 'mcp__basic__echo'), 'echo approval');
    const echoApproval = (eventData(echo) as { approval: PendingApproval }).approval;
    expect(echoApproval.request.arguments).toEqual({ text: 'hi' });
    expect((await client.get('/api/approvals')).json).toContainEqual(echoApproval);
    // a page that connects now is told what is waiting
    const late = await openEvents(client);
    try {
      const lateHello = await late.waitFor((e) => e.event === 'hello', 'hello');
      const greeting = eventData(lateHello) as Extract<StudioEvent, { kind: 'hello' }>;
      expect(greeting.approvals).toEqual([echoApproval]);
      // and which runs are live: a page that lost run.ended learns it from the next hello
      expect(greeting.runs).toEqual([sessionId]);
    } finally {
      late.close();
    }

    // a second run of a running session is refused
    const again = await client.post('/api/runs', { prompt: 'echo', sessionId });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ error: { code: 'SESSION_ALREADY_RUNNING' } });

    const allowed = await client.post(`/api/approvals/${echoApproval.id}`, { decision: 'allow' });
    expect(allowed.status).toBe(200);
    const add = await events.waitFor(pendingFor(sessionId, 'mcp__basic__add'), 'add approval');
    const addId = (eventData(add) as { approval: PendingApproval }).approval.id;
    const denied = await client.post(`/api/approvals/${addId}`, {
      decision: 'deny',
      reason: 'not now',
    });
    expect(denied.status).toBe(200);
    // an answered approval cannot be answered again
    expect((await client.post(`/api/approvals/${addId}`, { decision: 'allow' })).status).toBe(404);

    const ended = await events.waitFor(
      (e) =>
        eventData(e).kind === 'run.ended' &&
        (eventData(e) as { sessionId: string }).sessionId === sessionId,
      'run.ended',
    );
    expect(eventData(ended)).toEqual({ kind: 'run.ended', sessionId, status: 'completed' });

    const ofRun = events.events.map(agentEventOf).filter((e) => e?.sessionId === sessionId);
    // the calls may end in either order (the policy may ask about both at once)
    const completed = ofRun.flatMap((e) =>
      e?.type === 'tool.completed' ? [[e.toolName, e.errorCode ?? 'ok']] : [],
    );
    expect(completed.sort()).toEqual([
      ['mcp__basic__add', 'TOOL_DENIED'],
      ['mcp__basic__echo', 'ok'],
    ]);
    expect(ofRun.map((e) => e?.type)).toContain('model.delta');
    expect(ofRun[ofRun.length - 1]?.type).toBe('session.completed');
    const resolved = events.events.filter((e) => e.event === 'approval.resolved').map(eventData);
    expect(resolved).toEqual(
      expect.arrayContaining([
        { kind: 'approval.resolved', id: echoApproval.id, decision: 'allow' },
        { kind: 'approval.resolved', id: addId, decision: 'deny' },
      ]),
    );
    expect(events.events.some((e) => e.event === 'servers')).toBe(true);

    const after = await openEvents(client);
    try {
      const hello = await after.waitFor((e) => e.event === 'hello', 'hello');
      expect((eventData(hello) as Extract<StudioEvent, { kind: 'hello' }>).runs).toEqual([]);
    } finally {
      after.close();
    }

    const session = await client.get(`/api/sessions/${sessionId}`);
    expect(session.json).toMatchObject({
      id: sessionId,
      status: 'completed',
      title: 'echo and add',
      finalContent: 'done',
    });
    const list = await client.get('/api/sessions');
    expect((list.json as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toContain(
      sessionId,
    );
  });

  it('cancels a run waiting for an approval: the approval is withdrawn and the run ends cancelled', async () => {
    const started = await client.post('/api/runs', { prompt: 'echo' });
    const { sessionId } = started.json as { sessionId: string };
    const pending = await events.waitFor(
      pendingFor(sessionId, 'mcp__basic__echo'),
      'echo approval',
    );
    const id = (eventData(pending) as { approval: PendingApproval }).approval.id;

    const cancelled = await client.post(`/api/runs/${sessionId}/cancel`, {});
    expect(cancelled.json).toEqual({ cancelled: true });
    const withdrawn = await events.waitFor(
      (e) =>
        eventData(e).kind === 'approval.resolved' && (eventData(e) as { id: string }).id === id,
      'approval.resolved',
    );
    expect(eventData(withdrawn)).toEqual({ kind: 'approval.resolved', id, decision: 'cancelled' });
    const ended = await events.waitFor(
      (e) =>
        eventData(e).kind === 'run.ended' &&
        (eventData(e) as { sessionId: string }).sessionId === sessionId,
      'run.ended',
    );
    expect(eventData(ended)).toMatchObject({ status: 'cancelled' });
    expect((await client.get('/api/approvals')).json).toEqual([]);
    expect((await client.post(`/api/runs/${sessionId}/cancel`, {})).json).toEqual({
      cancelled: false,
    });
  });

  it('sends the error of a failed run with run.ended', async () => {
    const started = await client.post('/api/runs', { prompt: 'fail now' });
    const { sessionId } = started.json as { sessionId: string };
    const ended = await events.waitFor(
      (e) =>
        eventData(e).kind === 'run.ended' &&
        (eventData(e) as { sessionId: string }).sessionId === sessionId,
      'run.ended',
    );
    expect(eventData(ended)).toEqual({
      kind: 'run.ended',
      sessionId,
      status: 'failed',
      error: { code: 'MODEL_RESPONSE_INVALID', message: 'The model is down.' },
    });
  });

  it('refuses a run without a prompt and an answer that is no decision', async () => {
    const bad = await client.post('/api/runs', { prompt: '' });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: { code: 'STUDIO_BAD_REQUEST' } });
    const nothing = await client.post('/api/approvals/approval_nope', { decision: 'maybe' });
    expect(nothing.status).toBe(400);
    const missing = await client.get('/api/sessions/session_nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } });
  });

  it("item-05: a Tools page call's approval carries the page's callId; the wait is not in its duration", async () => {
    // the clock moves only when the person answers, a minute after being asked: with the wait
    // counted, a duration would be at least that minute; without it, nothing else moves it
    const WAIT_MS = 60_000;
    const answerLater = (id: string) => {
      vi.advanceTimersByTime(WAIT_MS);
      return client.post(`/api/approvals/${id}`, { decision: 'allow' });
    };
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      // a direct call from the Tools page, named by the page
      const call = client.post('/api/servers/basic/tools/echo/call', {
        arguments: { text: 'page' },
        callId: 'page-call-1',
      });
      const asked = await events.waitFor((e) => {
        const d = eventData(e);
        return d.kind === 'approval.pending' && d.approval.request.callId === 'page-call-1';
      }, 'the page call approval');
      const approval = (eventData(asked) as { approval: PendingApproval }).approval;
      expect(approval.request).toMatchObject({
        toolName: 'mcp__basic__echo',
        callId: 'page-call-1',
      });
      expect((await client.get('/api/approvals')).json).toContainEqual(approval);
      await answerLater(approval.id);
      const answered = await call;
      expect(answered.status, answered.text).toBe(200);
      const response = answered.json as CallToolResponse;
      expect(response.decision).toMatchObject({ decision: 'allow', stage: 'approval' });
      expect(response.durationMs).toBeLessThan(WAIT_MS);

      // a run's call: its tool.completed leaves the wait out too
      const started = await client.post('/api/runs', { prompt: 'echo' });
      const { sessionId } = started.json as { sessionId: string };
      const pending = await events.waitFor(pendingFor(sessionId, 'mcp__basic__echo'), 'approval');
      await answerLater((eventData(pending) as { approval: PendingApproval }).approval.id);
      const completed = await events.waitFor((e) => {
        const a = agentEventOf(e);
        return a?.type === 'tool.completed' && a.sessionId === sessionId;
      }, 'tool.completed');
      const done = agentEventOf(completed) as Extract<AgentEvent, { type: 'tool.completed' }>;
      expect(done.executed).toBe(true);
      expect(done.durationMs).toBeLessThan(WAIT_MS);
    } finally {
      vi.useRealTimers();
    }

    // a callId the page may not use is refused before anything is asked
    const bad = await client.post('/api/servers/basic/tools/echo/call', {
      arguments: { text: 'x' },
      callId: 'no spaces/or slashes',
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: { code: 'INVALID_CONFIGURATION' } });
  });
});
