import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import type { ChildRun } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from '../worker/worker-db.js';
import {
  fleetSeed,
  gateCalls,
  openGate,
  p50AndMax,
  parentOf,
  seeded,
  startWorker,
} from './fleet-harness.js';

// SPEC 15.5: kill -9 of the worker running a session, at 20 moments drawn from a printed seed
// (FLEET_SEED replays them): at its first model turn (the call about to be sent, or sent),
// while the call is in flight (the server holds it), or at its second model turn (after the
// result; that run may end before the signal lands, and then nothing is taken over). Another worker takes the session over
// (the lease expires, the sweep queues its resume); a call that was in flight is
// TOOL_OUTCOME_UNKNOWN and never sent again (the server's log shows each call at most once).

const url = databaseUrl();
const ROUNDS = 20;
const WORKERS = 3;
const MOMENTS = ['first-turn', 'in-flight', 'second-turn'] as const;
type Moment = (typeof MOMENTS)[number];

describe.skipIf(!url)('kill -9 of a worker', () => {
  const db = workerDb(url ?? '', 'kill');
  const all: ChildRun[] = [];
  afterAll(async () => {
    for (const c of all) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await db.drop();
  });

  it('at 20 seeded moments: every session is taken over and completes, no call runs twice, in-flight calls are TOOL_OUTCOME_UNKNOWN', async () => {
    const random = seeded(fleetSeed());
    const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    const agent = createAgent({ sessionStore: store });
    const producer = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
    const live: ChildRun[] = [];
    const start = async () => {
      const w = await startWorker(db);
      all.push(w);
      live.push(w);
      return w;
    };
    /** A session's status, lease and jobs, for a failure message. */
    const why = async (id: string) =>
      JSON.stringify({
        id,
        status: (await store.get(id))?.status,
        calls: gateCalls(db, id),
        lease: await db.query(
          `SELECT token, owner, expires_at > now() AS live FROM "${db.schema}".muster_leases WHERE session_id = $1`,
          [id],
        ),
        jobs: await db.query(
          `SELECT data->>'kind' AS kind, data->>'why' AS why, state, output FROM "${db.bossSchema}".job WHERE singleton_key = $1 ORDER BY created_on`,
          [id],
        ),
      });
    const completed = async (id: string) => (await store.get(id))?.status === 'completed';
    const takeovers: number[] = [];
    const rounds: { id: string; moment: Moment; takenOver: boolean }[] = [];
    const background: string[] = [];
    try {
      for (let i = 0; i < WORKERS; i++) await start();
      for (let round = 0; round < ROUNDS; round++) {
        const moment = MOMENTS[Math.floor(random() * MOMENTS.length)]!;
        const id = `s-${1000 + round}`;
        // 0-2 other sessions at the same time, which a kill may hit too
        const others = Array.from(
          { length: Math.floor(random() * 3) },
          (_, k) => `s-${2000 + round * 10 + k}`,
        );
        for (const other of others) openGate(db, other);
        // the gate stays shut until the takeover, but after the tool's result
        if (moment === 'second-turn') openGate(db, id);
        background.push(...others);
        for (const s of [id, ...others])
          await producer.enqueue({ input: `Run ${s}.`, sessionId: s });

        const turn = moment === 'second-turn' ? 'MODEL2' : 'MODEL1';
        let victim = await Promise.any(live.map((w) => w.line(`${turn} ${id}`).then(() => w)));
        if (moment === 'in-flight') {
          await vi.waitFor(() => expect(gateCalls(db, id)).toHaveLength(1), {
            timeout: 20_000,
            interval: 20,
          });
          const pid = parentOf(gateCalls(db, id)[0]!);
          victim = live.find((w) => w.child.pid === pid) ?? victim;
          expect(victim.child.pid, `the gate's caller of ${id}`).toBe(pid);
        }
        victim.child.kill('SIGKILL');
        const killedAt = performance.now();
        await victim.exited;
        live.splice(live.indexOf(victim), 1);
        // the session's own run may have ended just before the signal landed: then there is
        // nothing to take over
        // a survivor or the replacement started now: whichever runs the session's next turn
        const takers = [...live.map((w) => Promise.resolve(w)), start()];
        const taken = Promise.any(
          takers.map((p) =>
            p.then((w) => Promise.any([w.line(`MODEL1 ${id}`), w.line(`MODEL2 ${id}`)])),
          ),
        )
          .then(() => true)
          .catch(() => false);
        let stop = false;
        const ended = (async () => {
          while (!stop && !(await completed(id)))
            await new Promise((resolve) => setTimeout(resolve, 50));
          return false;
        })();
        const takenOver = await Promise.race([taken, ended]);
        stop = true;
        if (takenOver) takeovers.push(performance.now() - killedAt);
        await takers.at(-1);
        rounds.push({ id, moment, takenOver });
        openGate(db, id);
        await vi.waitFor(async () => expect(await completed(id), await why(id)).toBe(true), {
          timeout: 30_000,
          interval: 50,
        });
      }
      await vi.waitFor(
        async () => {
          for (const s of background) expect(await completed(s), await why(s)).toBe(true);
        },
        { timeout: 30_000, interval: 100 },
      );

      const { p50, max } = p50AndMax(takeovers);
      console.log(
        `takeover after kill -9: ${takeovers.length} of ${ROUNDS} sessions, p50 ${Math.round(p50)} ms, max ${Math.round(max)} ms; moments ${rounds.map((r) => r.moment).join(', ')}`,
      );
      for (const { id, moment, takenOver } of rounds) {
        const state = await store.get(id);
        expect(state?.finalContent, id).toBe(`done ${id}`);
        const calls = gateCalls(db, id);
        expect(calls.length, `${id} (${moment}): calls`).toBeLessThanOrEqual(1);
        const results = state!.messages.filter((m) => m.role === 'tool');
        expect(results, `${id}: one result for its one call`).toHaveLength(1);
        // killed before its tool answered: the run cannot have ended by itself
        if (moment !== 'second-turn') expect(takenOver, id).toBe(true);
        if (moment === 'in-flight') {
          expect(calls, id).toHaveLength(1);
          expect(results[0]!.content, id).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\]/);
        }
      }
      for (const s of background) expect(gateCalls(db, s).length, s).toBeLessThanOrEqual(1);
      expect(takeovers.length).toBeGreaterThan(0);

      for (const w of live) w.child.kill('SIGTERM');
      for (const w of live) expect((await w.exited).code, w.stderr()).toBe(0);
      const leases = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${db.schema}".muster_leases WHERE owner IS NOT NULL AND expires_at > now()`,
      );
      expect(leases[0]!.n).toBe('0');
    } finally {
      await producer.stop();
      await agent.close();
      await store.close();
    }
  }, 240_000);
});
