import { afterAll, describe, expect, it, vi } from 'vitest';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import type { Wait } from '../../src/index.js';
import { databaseUrl } from '../support/database.js';
import { sessionState } from '../support/session-state.js';
import { workerDb } from './worker-db.js';

// SPEC 15.5: the decision that leaves a session no wait pending queues its resume. Two
// decisions on two waits of one session at once must see each other: the one that commits
// last counts 0 pending (and its hook queues the resume).

const url = databaseUrl();

const waitOf = (sessionId: string, id: string): Wait => ({
  id,
  sessionId,
  runId: 'run_1',
  kind: 'approval',
  createdAt: new Date().toISOString(),
  fingerprint: 'f'.repeat(64),
  status: 'pending',
});

describe.skipIf(!url)('two decisions on one session at once', () => {
  const db = workerDb(url ?? '', 'decisions');
  // its own application name: the test finds this store's connections waiting for a lock
  const app = `muster_decisions_${db.schema.slice(-8)}`;
  const store = new PostgresSessionStore({
    connectionString: `${url ?? ''}${url?.includes('?') ? '&' : '?'}application_name=${app}`,
    schema: db.schema,
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('the second waits for the first to commit, then counts none pending', async () => {
    await store.create(sessionState('s-1', { status: 'parked' }));
    await store.waits.put(waitOf('s-1', 'w1'));
    await store.waits.put(waitOf('s-1', 'w2'));
    const pending: Record<string, number> = {};
    let second: Promise<Wait> | undefined;
    let secondInHook!: () => void;
    const secondEntered = new Promise<'hook'>((resolve) => {
      secondInHook = () => resolve('hook');
    });
    // the second decision's connection blocked on a lock (the first is not committed yet)
    const secondBlocked = () =>
      vi
        .waitFor(
          async () => {
            const rows = await db.query<{ n: string }>(
              `SELECT count(*) AS n FROM pg_stat_activity
             WHERE application_name = $1 AND wait_event_type = 'Lock'`,
              [app],
            );
            expect(rows[0]!.n).toBe('1');
            return 'blocked' as const;
          },
          { timeout: 30_000, interval: 20 },
        )
        .catch(() => 'never blocked' as const);
    const unhook = store.onWaitDecided(async (decided) => {
      pending[decided.wait.id] = decided.pending;
      if (decided.wait.id === 'w2') {
        secondInHook();
        return;
      }
      // inside the first decision's transaction: the second starts now
      second = store.waits.decide('s-1', 'w2', { decision: 'allow' });
      await Promise.race([secondEntered, secondBlocked()]);
    });
    try {
      await store.waits.decide('s-1', 'w1', { decision: 'allow' });
      await second;
    } finally {
      unhook();
    }
    expect(pending).toEqual({ w1: 1, w2: 0 });
  });
});
