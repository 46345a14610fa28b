/**
 * The studio's fleet view (SPEC 15.5, 12a): `GET /api/fleet` on a PostgreSQL store lists the
 * sessions of a real worker fleet (test/support/studio-fleet.ts) as running (with the run
 * that holds the lease and the worker's job), queued (a start job waiting for the worker's
 * only slot, with its input) and parked (with what they wait on, and the resume due at their
 * waits' expiry). It reads pg-boss's queue without writing it; a schema with no queue, or a
 * store of another kind, lists nothing queued and fails nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/model/index.js';
import { MemorySessionStore } from '../../src/session/index.js';
import type { SessionState, Wait } from '../../src/session/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { startStudio } from '../../src/studio/index.js';
import type {
  FleetResponse,
  FleetSessionView,
  RunningStudio,
  StudioErrorBody,
} from '../../src/studio/index.js';
import { databaseUrl } from '../support/database.js';
import { signIn } from '../support/studio-client.js';
import type { StudioClient } from '../support/studio-client.js';
import { fleetTurn, startStudioFleet } from '../support/studio-fleet.js';
import type { StudioFleet } from '../support/studio-fleet.js';

const url = databaseUrl();

describe.skipIf(!url)('the fleet of workers on PostgreSQL', () => {
  let fleet: StudioFleet;
  let studio: RunningStudio;
  let client: StudioClient;
  beforeAll(async () => {
    fleet = await startStudioFleet(url!, 'studiofleet');
    studio = await startStudio({
      model: scriptedModel(Array.from({ length: 5 }, () => fleetTurn)),
      sessionStore: fleet.store(),
      storeKind: 'postgres',
      fleet: { schema: fleet.db.bossSchema },
      mcpServers: fleet.servers,
      mcp: { strictConfig: true },
      allow: ['mcp_connect:*'],
    });
    client = await signIn(studio.url);
  });
  afterAll(async () => {
    await studio?.close();
    await fleet?.close();
  });

  const fleetOf = async (query = ''): Promise<FleetResponse> => {
    const reply = await client.get(`/api/fleet${query}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.json as FleetResponse;
  };

  it('lists one running (its holder and job), one queued (its input) and the parked ones (their waits)', async () => {
    const view = await fleetOf();
    expect(view.queue).toEqual({ name: 'muster', schema: fleet.db.bossSchema, found: true });
    expect(view.truncated).toBe(false);
    const by = (state: string): FleetSessionView[] =>
      view.sessions.filter((s) => s.state === state);
    const { sessions } = fleet;

    expect(by('running')).toEqual([
      expect.objectContaining({
        sessionId: sessions.running,
        status: 'running',
        holder: fleet.holder,
        job: expect.objectContaining({ state: 'active', kind: 'start' }),
      }),
    ]);
    expect(by('queued')).toEqual([
      {
        sessionId: sessions.queued,
        state: 'queued',
        input: 'Queued work.',
        job: expect.objectContaining({ state: 'created', kind: 'start' }),
      },
    ]);
    const parked = by('parked');
    expect(parked.map((s) => s.sessionId).sort()).toEqual([sessions.parked, sessions.task].sort());
    expect(parked.find((s) => s.sessionId === sessions.parked)).toMatchObject({
      status: 'parked',
      pendingWaits: ['approval'],
      job: { kind: 'resume', why: 'expires' },
    });
    expect(parked.find((s) => s.sessionId === sessions.task)).toMatchObject({
      pendingWaits: ['task'],
    });

    expect((await fleetOf('?state=queued')).sessions.map((s) => s.sessionId)).toEqual([
      sessions.queued,
    ]);
    const bad = await client.get('/api/fleet?state=sleeping');
    expect(bad.status).toBe(400);
    expect((bad.json as StudioErrorBody).error.code).toBe('STUDIO_BAD_REQUEST');
    // read only: the queue still holds the one start job, still waiting
    const jobs = await fleet.db.query<{ state: string }>(
      `SELECT state FROM "${fleet.db.bossSchema}".job WHERE name = 'muster' AND singleton_key = $1`,
      [sessions.queued],
    );
    expect(jobs).toEqual([{ state: 'created' }]);
  });

  it('a schema with no queue yet lists nothing queued, and fails nothing', async () => {
    const bare = await startStudio({
      sessionStore: fleet.store(),
      storeKind: 'postgres',
      fleet: { schema: 'pgboss_never_made' },
    });
    try {
      const other = await signIn(bare.url);
      const reply = await other.get('/api/fleet');
      expect(reply.status, reply.text).toBe(200);
      const view = reply.json as FleetResponse;
      expect(view.queue).toEqual({ name: 'muster', schema: 'pgboss_never_made', found: false });
      expect(view.sessions.filter((s) => s.state === 'queued')).toEqual([]);
      expect(view.sessions.filter((s) => s.state === 'running')).toHaveLength(1);
    } finally {
      await bare.close();
    }
  });
});

describe('the fleet of a store without workers', () => {
  it('lists its parked sessions and what they wait on; nothing queued, no queue', async () => {
    const store = new MemorySessionStore();
    const now = new Date().toISOString();
    await store.create({
      id: 'alone-parked',
      status: 'parked',
      messages: [],
      iteration: 1,
      createdAt: now,
      updatedAt: now,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      archiveRefs: [],
    });
    await store.waits.put({
      id: 'w1',
      sessionId: 'alone-parked',
      runId: 'run_1',
      kind: 'approval',
      createdAt: now,
      fingerprint: 'f'.repeat(64),
      status: 'pending',
    });
    const studio = await startStudio({ sessionStore: store });
    try {
      const client = await signIn(studio.url);
      const reply = await client.get('/api/fleet');
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json).toEqual({
        sessions: [
          {
            sessionId: 'alone-parked',
            state: 'parked',
            status: 'parked',
            updatedAt: now,
            pendingWaits: ['approval'],
          },
        ],
        truncated: false,
      });
    } finally {
      await studio.close();
    }
  });

  it("shows a parked session's waits however many other sessions' waits are pending (SQLite)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-fleet-'));
    const store = new SqliteSessionStore({ path: join(dir, 'sessions.sqlite') });
    const now = new Date().toISOString();
    const session = (id: string, status: SessionState['status']): SessionState => ({
      id,
      status,
      messages: [],
      iteration: 1,
      createdAt: now,
      updatedAt: now,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      archiveRefs: [],
    });
    const wait = (sessionId: string, id: string): Wait => ({
      id,
      sessionId,
      runId: 'run_1',
      kind: 'approval',
      createdAt: now,
      fingerprint: 'f'.repeat(64),
      status: 'pending',
    });
    // a session (not parked: its run died) holding 5,001 pending waits, whose ids sort first
    await store.create(session('a-busy', 'running'));
    for (let i = 0; i <= 5000; i++) await store.waits.put(wait('a-busy', `w${i}`));
    await store.create(session('z-parked', 'parked'));
    await store.waits.put(wait('z-parked', 'w1'));
    const studio = await startStudio({ sessionStore: store });
    try {
      const client = await signIn(studio.url);
      const reply = await client.get('/api/fleet?state=parked');
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json).toEqual({
        sessions: [
          {
            sessionId: 'z-parked',
            state: 'parked',
            status: 'parked',
            updatedAt: now,
            pendingWaits: ['approval'],
          },
        ],
        truncated: false,
      });
    } finally {
      await studio.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a fleet queue or schema that the workers could not have', async () => {
    await expect(startStudio({ fleet: { queue: 'no spaces' } })).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
    await expect(startStudio({ fleet: { schema: 'Upper' } })).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
  });
});
