import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import { collect } from '../support/run-helpers.js';
import { PostgresSessionStore, POSTGRES_SCHEMA_VERSION } from '../../src/session/postgres.js';
import { describeStoreContract, newState } from './store-contract.js';
import { pendingWait } from './wait-contract.js';
import { databaseUrl } from '../support/database.js';

const url = databaseUrl();

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

const newSchema = () => `muster_t_${randomBytes(6).toString('hex')}`;

describe.skipIf(!url)('PostgreSQL', () => {
  describeStoreContract(
    'PostgreSQL (each test in its own schema)',
    async () => {
      const schema = newSchema();
      const store = new PostgresSessionStore({ connectionString: url!, schema });
      return {
        store,
        cleanup: async () => {
          await store.close();
          await dropSchema(schema);
        },
        reopen: async () => {
          const pool = new pg.Pool({ connectionString: url! });
          const other = new PostgresSessionStore({ pool, schema });
          return { store: other, cleanup: async () => pool.end() };
        },
      };
    },
    { durable: true },
  );

  it('replicas starting together migrate the schema once, under the advisory lock', async () => {
    const schema = newSchema();
    const stores = Array.from(
      { length: 4 },
      () => new PostgresSessionStore({ connectionString: url!, schema }),
    );
    try {
      await Promise.all(stores.map((s, i) => s.create(newState(`m${i}`))));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const v = await client.query(`SELECT version FROM "${schema}".muster_schema_version`);
      await client.end();
      expect(v.rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
      expect((await stores[0]!.list()).sessions).toHaveLength(4);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await dropSchema(schema);
    }
  });

  it('a schema of version 5 (before budgets) gains the budget column and keeps its sessions', async () => {
    const schema = newSchema();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const store = new PostgresSessionStore({ connectionString: url!, schema });
      await store.create(newState('old', { status: 'completed', finalContent: 'done' }));
      await store.close();
      await client.query(`ALTER TABLE "${schema}".muster_sessions DROP COLUMN budget`);
      await client.query(`UPDATE "${schema}".muster_schema_version SET version = 5`);
      const again = new PostgresSessionStore({ connectionString: url!, schema });
      try {
        expect('budget' in ((await again.get('old')) ?? {})).toBe(false);
        const budget = {
          limits: { maxCostUsd: 1 },
          spent: { tokens: 1, costUsd: 0.5, toolCalls: 0, durationMs: 2 },
          warned: [],
        };
        await again.update('old', { budget });
        expect((await again.get('old'))?.budget).toEqual(budget);
      } finally {
        await again.close();
      }
      const v = await client.query(`SELECT version FROM "${schema}".muster_schema_version`);
      expect(v.rows).toEqual([{ version: 6 }]);
    } finally {
      await client.end();
      await dropSchema(schema);
    }
  });

  it('a schema of version 2 (before waits) gains muster_waits and keeps its sessions', async () => {
    const schema = newSchema();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const store = new PostgresSessionStore({ connectionString: url!, schema });
      await store.create(newState('old', { status: 'completed', finalOutput: { n: 1 } }));
      await store.close();
      // take the schema back to what version 2 wrote
      await client.query(
        `DROP TABLE "${schema}".muster_events, "${schema}".muster_steering; ALTER TABLE "${schema}".muster_sessions DROP COLUMN event_seq, DROP COLUMN principal, DROP COLUMN budget`,
      );
      await client.query(`DROP TABLE "${schema}".muster_waits`);
      await client.query(`UPDATE "${schema}".muster_schema_version SET version = 2`);
      const again = new PostgresSessionStore({ connectionString: url!, schema });
      try {
        expect(await again.get('old')).toMatchObject({ finalOutput: { n: 1 } });
        // a session stored before principals belongs to the local user
        expect('principal' in ((await again.get('old')) ?? {})).toBe(false);
        await again.create(newState('new', { principal: 'alice' }));
        expect((await again.get('new'))?.principal).toBe('alice');
        await again.waits.put(pendingWait('old', 'w1'));
        await again.waits.decide('old', 'w1', { decision: 'allow' });
        expect(await again.waits.list()).toMatchObject({
          waits: [{ id: 'w1', status: 'decided' }],
        });
      } finally {
        await again.close();
      }
      const v = await client.query(`SELECT version FROM "${schema}".muster_schema_version`);
      expect(POSTGRES_SCHEMA_VERSION).toBe(6);
      expect(v.rows).toEqual([{ version: 6 }]);
      // the inbox orders by code point whatever the database's collation, as cursors compare
      const collations = await client.query(
        `SELECT column_name, collation_name FROM information_schema.columns
         WHERE table_schema = $1 AND table_name = 'muster_waits' AND column_name IN ('session_id', 'id')
         ORDER BY column_name`,
        [schema],
      );
      expect(collations.rows).toEqual([
        { column_name: 'id', collation_name: 'C' },
        { column_name: 'session_id', collation_name: 'C' },
      ]);
    } finally {
      await client.end();
      await dropSchema(schema);
    }
  });

  it('a decision that fails leaves the wait row byte for byte as it was', async () => {
    const schema = newSchema();
    const store = new PostgresSessionStore({ connectionString: url!, schema });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await store.waits.put(pendingWait('s', 'w'));
      const row = async () =>
        JSON.stringify((await client.query(`SELECT * FROM "${schema}".muster_waits`)).rows);
      const before = await row();
      await expect(
        store.waits.decide('s', 'w', { decision: 'allow' }, { fingerprint: 'other' }),
      ).rejects.toMatchObject({ code: 'WAIT_STALE' });
      await expect(
        store.waits.decide('s', 'w', { decision: 'allow', extra: 1 } as never),
      ).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(await row()).toBe(before);
      await store.waits.decide('s', 'w', { decision: 'deny' });
      expect(await row()).not.toBe(before);
    } finally {
      await client.end();
      await store.close();
      await dropSchema(schema);
    }
  });
  it("dispatchState reads a session's status and principal without its transcript, or nothing for an unknown id", async () => {
    const schema = newSchema();
    const store = new PostgresSessionStore({ connectionString: url!, schema });
    try {
      await store.create(newState('mine', { status: 'parked', principal: 'user:ana' }));
      await store.create(newState('local', { status: 'completed' }));
      expect(await store.dispatchState('mine')).toEqual({
        status: 'parked',
        principal: 'user:ana',
      });
      expect(await store.dispatchState('local')).toEqual({ status: 'completed' });
      expect(await store.dispatchState('none')).toBeUndefined();
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });
});

describe('PostgresSessionStore failures', () => {
  it('an unreachable server fails the run with SESSION_STORE_FAILED and never shows the password', async () => {
    const CANARY = 'canary-pw-7d1f0c2a9b';
    // port 1 on loopback: nothing listens there, the connection is refused at once
    const store = new PostgresSessionStore({
      connectionString: `postgres://muster:${CANARY}@127.0.0.1:1/none`,
    });
    const agent = createAgent({ model: scriptedModel([{ text: 'x' }]), sessionStore: store });
    const { error, events } = await collect(agent.run({ input: 'hi' }));
    expect(error?.code).toBe('SESSION_STORE_FAILED');
    const cause = error?.cause as Error | undefined;
    expect(JSON.stringify([events, error?.message, cause?.message, cause?.stack])).not.toContain(
      CANARY,
    );
    await agent.close();
    await store.close();
  });
});
