/**
 * Parked runs in the studio (SPEC 15.1, 12a): a run parked by another process on the same
 * SQLite file is listed by `GET /api/waits`, decided with its fingerprint and resumed in the
 * studio; the tool runs once, in the studio. Deciding again is `WAIT_NOT_FOUND`, a stale
 * fingerprint `WAIT_STALE`; a decision voided by another policy version is asked again here.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/model/index.js';
import { MemorySessionStore } from '../../src/session/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import type { Wait } from '../../src/session/index.js';
import { startStudio } from '../../src/studio/index.js';
import type {
  DecideWaitResponse,
  ParkedWait,
  PendingApproval,
  RunningStudio,
  StudioErrorBody,
  WaitsResponse,
} from '../../src/studio/index.js';
import { startChild } from '../support/child-agent.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { openEvents, send, signIn } from '../support/studio-client.js';
import type { SseReader, StudioClient } from '../support/studio-client.js';
import { agentEventOf, eventData, pendingFor } from '../support/studio-events.js';

const PARKER = fileURLToPath(new URL('./park-in-child.ts', import.meta.url));
const TOOL = 'mcp__counting__echo';
const VERSION = 'studio-test-policy-1';

let dir: string;
let log: string;
let store: SqliteSessionStore;
let studio: RunningStudio;
let client: StudioClient;
let events: SseReader;

/** The counting server logs every `tools/call` it reads, whichever process sent it. */
function countingServer() {
  return stdioConfig('counting-server.mjs', [`--log=${log}`, '--log-requests']);
}

/** How many `tools/call` requests reached a counting server so far. */
function toolCalls(): number {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return 0;
  }
  return text.split('\n').filter((l) => l.endsWith(' tools/call')).length;
}

/** Parks a run of `sessionId` in a child process; resolves with its waits once it exited. */
async function parkInChild(sessionId: string, policy: object): Promise<Wait[]> {
  const child = startChild(PARKER, {
    PARK_DB: join(dir, 'sessions.sqlite'),
    PARK_SESSION: sessionId,
    PARK_SERVERS: JSON.stringify({ counting: countingServer() }),
    PARK_TOOL: TOOL,
    PARK_ARGS: JSON.stringify({ text: `parked ${sessionId}` }),
    PARK_POLICY: JSON.stringify(policy),
  });
  const waits = JSON.parse(await child.line('PARKED')) as Wait[];
  const exit = await child.exited;
  expect(exit.code, child.stderr()).toBe(0);
  return waits;
}

async function listWaits(query = ''): Promise<ParkedWait[]> {
  const reply = await client.get(`/api/waits${query}`);
  expect(reply.status, reply.text).toBe(200);
  return [...(reply.json as WaitsResponse).waits];
}

const runEnded = (sessionId: string, status: string) => (e: { data: unknown; event: string }) => {
  const d = eventData(e);
  return d.kind === 'run.ended' && d.sessionId === sessionId && d.status === status;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'muster-studio-waits-'));
  log = join(dir, 'counting.log');
  store = new SqliteSessionStore({ path: join(dir, 'sessions.sqlite') });
  studio = await startStudio({
    model: scriptedModel(Array.from({ length: 10 }, () => ({ text: 'Echoed.' }))),
    sessionStore: store,
    storeKind: 'sqlite',
    mcpServers: { counting: countingServer() },
    mcp: { strictConfig: true },
    allow: ['mcp_connect:counting'],
    policyVersion: VERSION,
  });
  client = await signIn(studio.url);
  events = await openEvents(client);
});
afterAll(async () => {
  events?.close();
  await studio?.close();
  store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a run parked by another process', () => {
  it('is listed, decided with its fingerprint, resumed here, and its tool runs once', async () => {
    const [parked] = await parkInChild('s-allow', {
      allow: ['mcp_connect:counting'],
      park: true,
      version: VERSION,
    });
    expect(parked).toBeDefined();
    expect(toolCalls()).toBe(0);

    const listed = await listWaits('?kind=approval&status=pending');
    const wait = listed.find((w) => w.id === parked!.id);
    expect(wait).toEqual({
      id: parked!.id,
      sessionId: 's-allow',
      runId: parked!.runId,
      kind: 'approval',
      callId: 'call_parked',
      toolName: TOOL,
      server: 'counting',
      arguments: { text: 'parked s-allow' },
      message: 'parked by policy.park',
      createdAt: parked!.createdAt,
      expiresAt: parked!.expiresAt,
      fingerprint: parked!.fingerprint,
      status: 'pending',
      expired: false,
    });

    // resumed before it is decided, the run parks again at once and nothing runs
    expect((await client.post('/api/runs/s-allow/resume', {})).status).toBe(200);
    await events.waitFor(runEnded('s-allow', 'parked'), 'run.ended parked');
    expect((await store.get('s-allow'))?.status).toBe('parked');
    expect(toolCalls()).toBe(0);

    // a fingerprint the stored wait does not have: refused, and nothing is decided
    const stale = await client.post(`/api/waits/s-allow/${wait!.id}`, {
      decision: 'allow',
      fingerprint: '0'.repeat(64),
    });
    expect(stale.status).toBe(409);
    expect((stale.json as StudioErrorBody).error.code).toBe('WAIT_STALE');
    expect((stale.json as StudioErrorBody).error.message).toMatch(/changed since it was shown/);
    expect((await listWaits('?sessionId=s-allow'))[0]?.status).toBe('pending');

    const decided = await client.post(`/api/waits/s-allow/${wait!.id}`, {
      decision: 'allow',
      reason: 'ok from the studio',
      fingerprint: wait!.fingerprint,
    });
    expect(decided.status, decided.text).toBe(200);
    expect((decided.json as DecideWaitResponse).wait).toMatchObject({
      id: wait!.id,
      status: 'decided',
      decision: { decision: 'allow', reason: 'ok from the studio' },
    });
    const told = await events.waitFor((e) => e.event === 'wait.decided', 'wait.decided');
    expect(eventData(told)).toMatchObject({ kind: 'wait.decided', wait: { id: wait!.id } });

    // a second decision: the wait is no longer pending
    const again = await client.post(`/api/waits/s-allow/${wait!.id}`, {
      decision: 'deny',
      fingerprint: wait!.fingerprint,
    });
    expect(again.status).toBe(404);
    expect((again.json as StudioErrorBody).error.code).toBe('WAIT_NOT_FOUND');
    expect((again.json as StudioErrorBody).error.message).toMatch(/already decided/);
    expect(toolCalls()).toBe(0);

    const resumed = await client.post('/api/runs/s-allow/resume', {});
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json).toEqual({ sessionId: 's-allow' });
    const ended = await events.waitFor(runEnded('s-allow', 'completed'), 'run.ended');
    expect(eventData(ended)).toEqual({
      kind: 'run.ended',
      sessionId: 's-allow',
      status: 'completed',
    });

    // the run's events reached the stream like a started run's: the decision applied, the call ran
    const ran = events.events.map(agentEventOf).filter((e) => e?.sessionId === 's-allow');
    expect(ran.find((e) => e?.type === 'wait.decided')).toMatchObject({
      waitId: wait!.id,
      applied: true,
    });
    expect(ran.find((e) => e?.type === 'tool.completed')).toMatchObject({
      toolName: TOOL,
      isError: false,
      executed: true,
    });
    expect(toolCalls()).toBe(1);
    const session = await store.get('s-allow');
    expect(session?.status).toBe('completed');
    expect(session?.finalContent).toBe('Echoed.');
    expect(await listWaits('?sessionId=s-allow')).toEqual([]);

    // nothing is left to resume
    const twice = await client.post('/api/runs/s-allow/resume', {});
    expect(twice.status).toBe(400);
    expect((twice.json as StudioErrorBody).error.message).toMatch(/completed, not parked/);
    expect(toolCalls()).toBe(1);
  });

  it('asks again here when the decision was taken under another policy', async () => {
    // no version: the child's policy hashes its own data, which differs from the studio's
    const [parked] = await parkInChild('s-drift', {
      allow: ['mcp_connect:counting'],
      park: true,
    });
    const before = toolCalls();
    const decided = await client.post(`/api/waits/s-drift/${parked!.id}`, {
      decision: 'allow',
      fingerprint: parked!.fingerprint,
    });
    expect(decided.status, decided.text).toBe(200);
    expect((await client.post('/api/runs/s-drift/resume', {})).status).toBe(200);
    // the voided decision runs nothing: the call waits on the studio's own approvals queue
    const asked = await events.waitFor(pendingFor('s-drift', TOOL), 'approval.pending');
    const approval = (eventData(asked) as { approval: PendingApproval }).approval;
    expect(approval.request.arguments).toEqual({ text: 'parked s-drift' });
    // the run's logged events reach the studio once committed (within OWN_FLUSH_DELAY_MS when
    // no step commit carries them), so the approval, which is not logged, may come first
    const voidedEvent = await events.waitFor((e) => {
      const ev = agentEventOf(e);
      return ev?.sessionId === 's-drift' && ev.type === 'wait.decided';
    }, 'wait.decided');
    expect(agentEventOf(voidedEvent)).toMatchObject({ waitId: parked!.id, applied: false });
    expect(toolCalls()).toBe(before);

    expect((await client.post(`/api/approvals/${approval.id}`, { decision: 'allow' })).status).toBe(
      200,
    );
    await events.waitFor(runEnded('s-drift', 'completed'), 'run.ended');
    expect(toolCalls()).toBe(before + 1);
    expect(await listWaits('?sessionId=s-drift')).toEqual([]);
  });

  it('refuses what is not a decision, an unknown session, and a cross-site decision', async () => {
    const unknownKind = await client.get('/api/waits?kind=nope');
    expect(unknownKind.status).toBe(400);
    expect((unknownKind.json as StudioErrorBody).error.code).toBe('STUDIO_BAD_REQUEST');
    expect((await client.get('/api/waits?limit=0')).status).toBe(400);

    const noFingerprint = await client.post('/api/waits/s-x/w-x', { decision: 'allow' });
    expect(noFingerprint.status).toBe(400);
    expect((noFingerprint.json as StudioErrorBody).error.issues?.[0]?.path).toBe('fingerprint');

    const unknown = await client.post('/api/waits/s-x/w-x', {
      decision: 'allow',
      fingerprint: 'f',
    });
    expect(unknown.status).toBe(404);
    expect((unknown.json as StudioErrorBody).error.code).toBe('WAIT_NOT_FOUND');

    const noSession = await client.post('/api/runs/s-none/resume', {});
    expect(noSession.status).toBe(404);
    expect((noSession.json as StudioErrorBody).error.code).toBe('SESSION_NOT_FOUND');

    // another origin may not decide (the studio's CSRF rule holds for the new routes)
    const crossSite = await send(client.port, {
      method: 'POST',
      path: '/api/waits/s-x/w-x',
      body: { decision: 'allow', fingerprint: 'f' },
      headers: {
        cookie: client.cookie,
        origin: 'http://127.0.0.1:1',
        'content-type': 'application/json',
      },
    });
    expect(crossSite.status).toBe(403);
    expect((await send(client.port, { path: '/api/waits' })).status).toBe(403);
  });
});

describe('a parked form (elicitation wait)', () => {
  it('is answered with an action and content checked against its schema', async () => {
    const memory = new MemorySessionStore();
    const now = Date.now();
    await memory.waits.put({
      id: 'wait_form',
      sessionId: 's-form',
      runId: 'run_form',
      kind: 'elicitation',
      callId: 'call_form',
      server: 'forms',
      message: 'Your name?',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 2 } },
        required: ['name'],
      },
      requestState: 'opaque-protocol-state',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 60_000).toISOString(),
      fingerprint: 'f'.repeat(64),
      status: 'pending',
    });
    const forms = await startStudio({ sessionStore: memory });
    try {
      const c = await signIn(forms.url);
      const listed = (await c.get('/api/waits?kind=elicitation')).json as WaitsResponse;
      expect(listed.waits).toHaveLength(1);
      expect(listed.waits[0]).toMatchObject({ kind: 'elicitation', message: 'Your name?' });
      expect(JSON.stringify(listed)).not.toContain('opaque-protocol-state');

      const bad = await c.post('/api/waits/s-form/wait_form', {
        action: 'accept',
        content: { name: 'A' },
        fingerprint: 'f'.repeat(64),
      });
      expect(bad.status).toBe(400);
      expect((bad.json as StudioErrorBody).error.code).toBe('INVALID_CONFIGURATION');

      const good = await c.post('/api/waits/s-form/wait_form', {
        action: 'accept',
        content: { name: 'Ada' },
        fingerprint: 'f'.repeat(64),
      });
      expect(good.status, good.text).toBe(200);
      expect((good.json as DecideWaitResponse).wait).toMatchObject({
        status: 'decided',
        decision: { action: 'accept', content: { name: 'Ada' } },
      });
    } finally {
      await forms.close();
    }
  });
});
