/**
 * MCP tasks and sign-ins in the studio (SPEC 15.3, 15.4, 12a), against the real tasks fixture
 * over stdio: a run whose call became a task parks on a `task` wait, and `GET /api/waits`
 * shows the task (status, the server's status message, id, server, tool, when it was last
 * polled, its ttl). Deciding it `cancel` and resuming sends the server exactly one
 * `tasks/cancel` (counted by the server) and ends the call `TOOL_OUTCOME_UNKNOWN`; a task a
 * live run polls cannot be decided (409), and cancelling that run sends the one cancel. An
 * `auth` wait shows whom the sign-in is for (principal, server, issuer), never a secret the
 * studio could reach (a canary in the principal's stored tokens and on the stored waits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTokenStore, oauthNamespace, osUser } from '../../src/auth/index.js';
import { scriptedModel } from '../../src/model/index.js';
import type { ModelRequest, ToolResultMessage } from '../../src/model/index.js';
import { MemorySessionStore } from '../../src/session/index.js';
import { startStudio } from '../../src/studio/index.js';
import type {
  DecideWaitResponse,
  ParkedWait,
  RunningStudio,
  StudioErrorBody,
  WaitsResponse,
} from '../../src/studio/index.js';
import { requestsFor, startTasksFixture } from '../mcp/tasks/tasks-fixture.js';
import type { TasksFixture } from '../mcp/tasks/tasks-fixture.js';
import { openEvents, signIn } from '../support/studio-client.js';
import type { SseEvent, SseReader, StudioClient } from '../support/studio-client.js';
import { agentEventOf, eventData } from '../support/studio-events.js';

const TOOL = 'mcp__t__finish';

/** Calls the task tool first; once its result is in, answers with it. */
const turn = (request: ModelRequest) => {
  const result = request.messages.findLast((m): m is ToolResultMessage => m.role === 'tool');
  if (!result) return { toolCalls: [{ name: TOOL, arguments: { ms: 600_000 } }] };
  return { text: `got: ${result.content}` };
};

interface Studio {
  readonly studio: RunningStudio;
  readonly store: MemorySessionStore;
  readonly client: StudioClient;
  readonly events: SseReader;
}

let fixture: TasksFixture;
const opened: Studio[] = [];

/** A studio on a memory store with the fixture as server `t`; `parkAfterMs` for its runs. */
async function openStudio(parkAfterMs: number): Promise<Studio> {
  const store = new MemorySessionStore();
  const studio = await startStudio({
    model: scriptedModel(Array.from({ length: 10 }, () => turn)),
    sessionStore: store,
    mcpServers: { t: fixture.config },
    mcp: {
      strictConfig: true,
      tasks: { minPollIntervalMs: 25, maxPollIntervalMs: 100, parkAfterMs },
    },
    allow: ['mcp_connect:t', 'mcp__t__*'],
  });
  const client = await signIn(studio.url);
  const events = await openEvents(client);
  const made = { studio, store, client, events };
  opened.push(made);
  return made;
}

const runEnded = (sessionId: string, status: string) => (e: SseEvent) => {
  const d = eventData(e);
  return d.kind === 'run.ended' && d.sessionId === sessionId && d.status === status;
};

async function taskWaits(client: StudioClient, sessionId: string): Promise<ParkedWait[]> {
  const reply = await client.get(`/api/waits?kind=task&sessionId=${sessionId}`);
  expect(reply.status, reply.text).toBe(200);
  return [...(reply.json as WaitsResponse).waits];
}

beforeAll(async () => {
  fixture = await startTasksFixture('stdio');
});
afterAll(async () => {
  for (const s of opened) {
    s.events.close();
    await s.studio.close();
  }
  await fixture?.stop();
});

describe('a run parked on an MCP task', () => {
  it('shows the task as last polled; Cancel (decide cancel, resume) sends one tasks/cancel and the call ends TOOL_OUTCOME_UNKNOWN', async () => {
    const { client, events } = await openStudio(1);
    const started = await client.post('/api/runs', { prompt: 'Do the long work.' });
    expect(started.status, started.text).toBe(200);
    const { sessionId } = started.json as { sessionId: string };
    await events.waitFor(runEnded(sessionId, 'parked'), 'run.ended parked');

    const [wait] = await taskWaits(client, sessionId);
    expect(wait).toMatchObject({
      kind: 'task',
      sessionId,
      server: 't',
      toolName: TOOL,
      status: 'pending',
      expired: false,
      task: {
        status: 'working',
        statusMessage: 'finish is working',
        ttlMs: 60_000,
        pollIntervalMs: 50,
      },
    });
    const task = wait!.task!;
    expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/);
    // polled at least once, after its answer was read; the ttl counted from that answer
    expect(task.polledAt).toBeDefined();
    expect(Date.parse(task.polledAt!)).toBeGreaterThanOrEqual(Date.parse(task.acceptedAt));
    expect(Date.parse(task.ttlEndsAt!)).toBe(Date.parse(task.acceptedAt) + 60_000);
    expect(requestsFor(fixture.log(), 'tasks/get', task.taskId)).toBeGreaterThanOrEqual(1);
    expect(requestsFor(fixture.log(), 'tasks/cancel', task.taskId)).toBe(0);

    // a decision other than cancel is refused, naming the one it takes
    const wrong = await client.post(`/api/waits/${sessionId}/${wait!.id}`, {
      decision: 'allow',
      fingerprint: wait!.fingerprint,
    });
    expect(wrong.status).toBe(400);
    expect((wrong.json as StudioErrorBody).error.message).toContain("decision: 'cancel'");

    const decided = await client.post(`/api/waits/${sessionId}/${wait!.id}`, {
      decision: 'cancel',
      reason: 'not needed any more',
      fingerprint: wait!.fingerprint,
    });
    expect(decided.status, decided.text).toBe(200);
    expect((decided.json as DecideWaitResponse).wait).toMatchObject({
      id: wait!.id,
      status: 'decided',
      decision: { decision: 'cancel', reason: 'not needed any more' },
    });
    // the decision alone sends nothing: the run that resumes cancels
    expect(requestsFor(fixture.log(), 'tasks/cancel', task.taskId)).toBe(0);

    const polls = requestsFor(fixture.log(), 'tasks/get', task.taskId);
    const resumed = await client.post(`/api/runs/${sessionId}/resume`, {});
    expect(resumed.status, resumed.text).toBe(200);
    await events.waitFor(runEnded(sessionId, 'completed'), 'run.ended completed');
    expect(requestsFor(fixture.log(), 'tasks/cancel', task.taskId)).toBe(1);
    // cancelled, not polled again
    expect(requestsFor(fixture.log(), 'tasks/get', task.taskId)).toBe(polls);
    expect(
      fixture.log().filter((r) => r.method === 'tools/call' && r.tool === 'finish'),
    ).toHaveLength(1);

    const ran = events.events.map(agentEventOf).filter((e) => e?.sessionId === sessionId);
    expect(ran.find((e) => e?.type === 'wait.decided' && e.waitId === wait!.id)).toMatchObject({
      applied: true,
      decision: { decision: 'cancel' },
    });
    const completed = ran.find((e) => e?.type === 'tool.completed');
    expect(completed).toMatchObject({ toolName: TOOL, errorCode: 'TOOL_OUTCOME_UNKNOWN' });
    expect(JSON.stringify(completed)).toContain(task.taskId);
    expect(await taskWaits(client, sessionId)).toEqual([]);
  });

  it('a task a live run polls cannot be decided (409); cancelling that run sends its one tasks/cancel', async () => {
    const { client, events } = await openStudio(600_000);
    const started = await client.post('/api/runs', { prompt: 'Do the long work.' });
    const { sessionId } = started.json as { sessionId: string };
    // the run commits the task's handle (a pending task wait) before its first poll
    const polled = await events.waitFor(
      (e) => agentEventOf(e)?.type === 'tool.task' && agentEventOf(e)?.sessionId === sessionId,
      'tool.task',
    );
    const taskId = (agentEventOf(polled) as { taskId: string }).taskId;
    const [wait] = await taskWaits(client, sessionId);
    expect(wait).toMatchObject({ status: 'pending', task: { taskId } });

    const refused = await client.post(`/api/waits/${sessionId}/${wait!.id}`, {
      decision: 'cancel',
      fingerprint: wait!.fingerprint,
    });
    expect(refused.status).toBe(409);
    expect((refused.json as StudioErrorBody).error.code).toBe('SESSION_ALREADY_RUNNING');
    expect((refused.json as StudioErrorBody).error.message).toMatch(/polls the task/);
    expect((await taskWaits(client, sessionId))[0]?.status).toBe('pending');

    const cancelled = await client.post(`/api/runs/${sessionId}/cancel`, {});
    expect(cancelled.json).toEqual({ cancelled: true });
    await events.waitFor(runEnded(sessionId, 'cancelled'), 'run.ended cancelled');
    // sent in the background when the call ended: the server has it by the time it answers
    await expect
      .poll(() => requestsFor(fixture.log(), 'tasks/cancel', taskId), { timeout: 10_000 })
      .toBe(1);
  });
});

describe('a run waiting for a sign-in', () => {
  it('shows whom the sign-in is for (principal, server, issuer), never a secret the studio could reach', async () => {
    // a canary in every secret the studio could reach: the principal's stored tokens and
    // pending sign-in (the studio's own token file), an authorization URL and a foreign
    // field stored on the auth wait (no auth wait should carry them), and the protocol state
    // and answers stored on an elicitation wait
    const CANARY = 'canary-9f3c1e77d2';
    const tokens = fileTokenStore();
    for (const principal of ['user:ann', undefined])
      await tokens.set(oauthNamespace('gh', 'https://mcp.example.com/', osUser(), principal), {
        tokens: { access_token: `${CANARY}-access`, token_type: 'Bearer', refresh_token: CANARY },
        pendingLogin: { state: CANARY, verifier: CANARY, expiresAt: Date.now() + 60_000 },
      });
    const { client, store } = await openStudio(1);
    const signInWait = {
      id: 'wait_signin',
      sessionId: 'session-signin',
      runId: 'run_signin',
      kind: 'auth',
      server: 'gh',
      issuer: 'https://auth.example.com',
      principal: 'user:ann',
      message: "Server 'gh' needs this principal to sign in.",
      createdAt: new Date().toISOString(),
      fingerprint: 'a'.repeat(64),
      status: 'pending',
    } as const;
    await store.waits.put({
      ...signInWait,
      url: `https://auth.example.com/authorize?state=${CANARY}&code_challenge=${CANARY}`,
      ...({ accessToken: CANARY } as object),
    });
    await store.waits.put({
      id: 'wait_form',
      sessionId: 'session-signin',
      runId: 'run_signin',
      kind: 'elicitation',
      server: 'gh',
      message: 'Which repository?',
      requestState: CANARY,
      inputKey: 'repo',
      inputResponses: { token: { action: 'accept', content: { token: CANARY } } },
      createdAt: new Date().toISOString(),
      fingerprint: 'b'.repeat(64),
      status: 'pending',
    });
    const reply = await client.get('/api/waits?kind=auth');
    expect(reply.status, reply.text).toBe(200);
    expect((reply.json as WaitsResponse).waits).toEqual([
      {
        id: 'wait_signin',
        sessionId: 'session-signin',
        runId: 'run_signin',
        kind: 'auth',
        server: 'gh',
        principal: 'user:ann',
        issuer: 'https://auth.example.com',
        message: "Server 'gh' needs this principal to sign in.",
        createdAt: expect.any(String),
        fingerprint: 'a'.repeat(64),
        status: 'pending',
        expired: false,
      },
    ]);
    const all = await client.get('/api/waits?sessionId=session-signin');
    expect(all.status, all.text).toBe(200);
    expect((all.json as WaitsResponse).waits.map((w) => w.id)).toEqual([
      'wait_form',
      'wait_signin',
    ]);
    for (const text of [reply.text, all.text]) expect(text).not.toContain(CANARY);
  });
});
