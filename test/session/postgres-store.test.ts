import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import { collect } from '../support/run-helpers.js';
import { PostgresSessionStore, POSTGRES_SCHEMA_VERSION } from '../../src/session/postgres.js';
import { describeStoreContract, newState } from './store-contract.js';
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
