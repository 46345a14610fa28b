import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type {
  ModelRequest,
  SessionLease,
  SessionState,
  ToolResultMessage,
} from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { databaseUrl } from '../support/database.js';
import { collect } from '../support/run-helpers.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import type { TcpProxy } from '../support/tcp-proxy.js';

const url = databaseUrl();
const LEASE_MS = 3_000;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function newSchema(): Promise<string> {
  const schema = `muster_t_${randomBytes(6).toString('hex')}`;
  cleanups.push(() => sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
  return schema;
}

async function proxyToDatabase(): Promise<TcpProxy> {
  const target = new URL(url!);
  const proxy = await startTcpProxy({
    host: target.hostname,
    port: Number(target.port || 5432),
  });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** Resolves once the session's lease has expired by the server's clock. */
async function leaseExpired(schema: string, sessionId: string): Promise<void> {
  const [row] = await sql<{ ms: number }>(
    `SELECT greatest(0, extract(epoch FROM expires_at - clock_timestamp()) * 1000)::float8 AS ms
     FROM "${schema}".muster_leases WHERE session_id = $1`,
    [sessionId],
  );
  await new Promise((resolve) => setTimeout(resolve, Math.ceil(row!.ms) + 1));
}

describe.skipIf(!url)(
  'PostgreSQL cut off by a network partition (no reset: packets dropped)',
  () => {
    it('item-12: a run stops with its lease lost within the TTL, another store resumes it, and the late writes are refused', async () => {
      const schema = await newSchema();
      const proxy = await proxyToDatabase();
      // the default queryTimeoutMs (30 s), far over the lease: only the lease's deadline stops the run
      const cutOff = new PostgresSessionStore({
        connectionString: proxy.urlFor(url!),
        schema,
        idleTransactionTimeoutMs: 1000,
      });
      const direct = new PostgresSessionStore({ connectionString: url!, schema });
      cleanups.push(() => direct.close());
      let before: SessionState | undefined;
      let cutAt = 0;
      const executions: string[] = [];
      const cutter = tool({
        name: 'work',
        description: 'Does some work; the second call cuts the network.',
        input: z.object({}),
        execute: async (_input, ctx) => {
          executions.push(ctx.callId);
          if (ctx.callId === 'call_1' && !proxy.isCut) {
            before = await direct.get('cut');
            proxy.cut();
            cutAt = performance.now();
          }
          return `done ${ctx.callId}`;
        },
      });
      const turn = (request: ModelRequest) => {
        const n = request.messages.filter((m) => m.role === 'assistant').length;
        if (n < 2) return { toolCalls: [{ name: 'work', arguments: {}, id: `call_${n}` }] };
        return { text: 'finished' };
      };
      const options = { tools: [cutter], policy: { allow: ['*'] }, sessionLeaseMs: LEASE_MS };
      const first = createAgent({
        ...options,
        model: scriptedModel(Array.from({ length: 5 }, () => turn)),
        sessionStore: cutOff,
      });

      // the call's result cannot be committed, the heartbeat cannot renew: the run stops
      const { error } = await collect(first.run({ input: 'work', sessionId: 'cut' }));
      const stoppedAfter = performance.now() - cutAt;
      expect(error?.code).toBe('SESSION_ALREADY_RUNNING');
      expect(stoppedAfter).toBeLessThan(LEASE_MS);
      // stopped while its lease still held: no other process could have taken the session yet
      expect(await direct.acquire('cut', 'probe', LEASE_MS)).toBeUndefined();
      await first.close();

      // after the TTL another process (a direct connection) claims and resumes the session
      await leaseExpired(schema, 'cut');
      const second = createAgent({
        ...options,
        model: scriptedModel(Array.from({ length: 5 }, () => turn)),
        sessionStore: direct,
      });
      cleanups.push(() => second.close());
      const resumed = await collect(second.resume('cut'));
      expect(resumed.error).toBeUndefined();
      const after = (await direct.get('cut'))!;
      expect(after.status).toBe('completed');
      // the committed steps are intact: the first call's result, the second call started
      expect(before!.startedCalls).toEqual(['call_0', 'call_1']);
      expect(after.messages.slice(0, before!.messages.length)).toEqual(before!.messages);
      const cutCall = after.messages.find(
        (m): m is ToolResultMessage => m.role === 'tool' && m.callId === 'call_1',
      )!;
      expect(cutCall.content).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\]/);
      expect(executions).toEqual(['call_0', 'call_1']);

      // the partition heals: the first process's held commit reaches the server, and a write
      // naming its lease is refused
      proxy.restore();
      const [{ token }] = (await sql<{ token: string }>(
        `SELECT min(lease_token) AS token FROM "${schema}".muster_messages WHERE session_id = $1`,
        ['cut'],
      )) as [{ token: string }];
      const stale: SessionLease = {
        token: Number(token),
        owner: 'first',
        renew: () => Promise.resolve(),
        release: () => Promise.resolve(),
      };
      await expect(
        cutOff.update(
          'cut',
          { appendMessages: [{ role: 'assistant', content: [{ type: 'text', text: 'late' }] }] },
          { lease: stale },
        ),
      ).rejects.toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
      // closing waits for the held commit to settle: it was refused, nothing changed
      await cutOff.close();
      expect(await direct.get('cut')).toEqual(after);
    });

    it('item-12: a connect through a cut proxy fails within connectTimeoutMs with SESSION_STORE_FAILED, server-unreachable', async () => {
      const schema = await newSchema();
      const proxy = await proxyToDatabase();
      proxy.cut();
      const store = new PostgresSessionStore({
        connectionString: proxy.urlFor(url!),
        schema,
        connectTimeoutMs: 300,
      });
      cleanups.push(() => store.close());
      const startedAt = performance.now();
      const err = await store.get('any').then(
        () => undefined,
        (e: unknown) => e,
      );
      // far under the default 10 s: the option bounds it
      expect(performance.now() - startedAt).toBeLessThan(5_000);
      expect(err).toMatchObject({
        code: 'SESSION_STORE_FAILED',
        details: { reason: 'server-unreachable', store: 'postgres', timeoutMs: 300 },
      });
      expect((err as Error).message).toMatch(/connectTimeoutMs/);
    });
  },
);
