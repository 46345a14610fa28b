/**
 * Principals (SPEC 15.4): a run names the user it acts for; the principal is stored with the
 * session, carried by policy requests, the policy observer, waits and `session.started`, and
 * inherited by delegated runs. Bad ids are refused before anything is written, and continuing,
 * resuming, steering or deciding another principal's session is `PRINCIPAL_MISMATCH` with her
 * transcript unchanged — on the memory store, a real SQLite file and the real PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MemorySessionStore,
  createAgent,
  createSdkMcpServer,
  scriptedModel,
  sdkTool,
  tool,
} from '../../src/index.js';
import { query } from '../../src/query/index.js';
import type {
  AuthorizationEvent,
  AuthorizationRequest,
  MusterError,
  SessionStore,
  ToolExecutor,
} from '../../src/index.js';
import type { ExecutorRunContext } from '../../src/tools/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { databaseUrl } from '../support/database.js';
import { collect, ofType } from '../support/run-helpers.js';

const url = databaseUrl();

interface OpenStore {
  readonly store: SessionStore;
  readonly close: () => Promise<void>;
}

const STORES: readonly (readonly [string, (() => Promise<OpenStore>) | undefined])[] = [
  ['memory', async () => ({ store: new MemorySessionStore(), close: async () => undefined })],
  [
    'SQLite (a real file)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'muster-principal-'));
      const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
      return {
        store,
        close: async () => {
          store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
  [
    'PostgreSQL',
    url
      ? async () => {
          const schema = `muster_t_${randomBytes(6).toString('hex')}`;
          const store = new PostgresSessionStore({ connectionString: url, schema });
          return {
            store,
            close: async () => {
              await store.close();
              const client = new pg.Client({ connectionString: url });
              await client.connect();
              await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
              await client.end();
            },
          };
        }
      : undefined,
  ],
];

const pay = (runs: string[]) =>
  tool({
    name: 'pay',
    description: 'Pays n.',
    input: z.object({ n: z.number() }),
    execute: ({ n }) => {
      runs.push(`pay:${n}`);
      return `paid ${n}`;
    },
  });

async function failure(p: Promise<unknown>): Promise<MusterError> {
  try {
    await p;
  } catch (err) {
    return err as MusterError;
  }
  throw new Error('did not fail');
}

const BAD_IDS: readonly (readonly [string, unknown])[] = [
  ['empty', ''],
  ['257 characters', 'a'.repeat(257)],
  ['a control character', 'alice\u0007'],
  ['a newline', 'alice\nbob'],
  ['a C1 control character', 'alice\u0085'],
  ['DEL', 'alice\u007f'],
  ['a lone surrogate', 'alice\ud800'],
  ['not a string', 42],
];

for (const [name, open] of STORES) {
  describe.skipIf(!open)(`principals on the ${name} store`, () => {
    const opened: OpenStore[] = [];
    const store = async () => {
      const s = await open!();
      opened.push(s);
      return s.store;
    };
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });

    it.each(BAD_IDS)(
      'a principal id that is %s is INVALID_CONFIGURATION: nothing runs, nothing is written',
      async (_, bad) => {
        const sessionStore = await store();
        const model = scriptedModel([{ text: 'never' }]);
        const agent = createAgent({ model, sessionStore });
        try {
          const run = await collect(
            agent.run({ input: 'hi', sessionId: 'bad', principal: bad as string }),
          );
          expect(run.error?.code).toBe('INVALID_CONFIGURATION');
          expect(run.error?.message).toMatch(/principal.*1-256 characters|principal.*string/);
          const sent = await failure(
            agent.send('hi', { sessionId: 'bad', principal: bad as string }),
          );
          expect(sent.code).toBe('INVALID_CONFIGURATION');
          const resumed = await collect(agent.resume('bad', { principal: bad as string }));
          expect(resumed.error?.code).toBe('INVALID_CONFIGURATION');
          const steered = await failure(agent.steer('bad', 'x', { principal: bad as string }));
          expect(steered.code).toBe('INVALID_CONFIGURATION');
          const decided = await failure(
            agent.decide('bad', 'w', { decision: 'allow' }, { principal: bad as string }),
          );
          expect(decided.code).toBe('INVALID_CONFIGURATION');
          expect(model.requests).toHaveLength(0);
          expect(await sessionStore.get('bad')).toBeUndefined();
          expect((await sessionStore.list!()).sessions).toEqual([]);
        } finally {
          await agent.close();
        }
      },
    );

    it('a 256-character id (emoji included) is taken, stored and read back', async () => {
      const sessionStore = await store();
      const principal = `${'😀'.repeat(6)}${'a'.repeat(250)}`;
      const agent = createAgent({ model: scriptedModel([{ text: 'ok' }]), sessionStore });
      try {
        const sent = await agent.send('hi', { sessionId: 'long', principal });
        expect(ofType(sent.events, 'session.started')[0]?.principal).toBe(principal);
        expect((await sessionStore.get('long'))?.principal).toBe(principal);
      } finally {
        await agent.close();
      }
    });

    it("Bob (or the local user) cannot continue, resume, steer or decide Alice's session", async () => {
      const sessionStore = await store();
      const runs: string[] = [];
      const requests: AuthorizationRequest[] = [];
      const observed: AuthorizationEvent[] = [];
      const model = scriptedModel([
        { toolCalls: [{ name: 'pay', arguments: { n: 5 }, id: 'call_pay' }] },
        { text: 'Paid.' },
      ]);
      const agent = createAgent({
        model,
        tools: [pay(runs)],
        sessionStore,
        policy: {
          park: true,
          rules: [
            {
              id: 'record',
              authorize: (req) => {
                requests.push(req);
                return undefined;
              },
            },
          ],
          observer: (e) => observed.push(e),
        },
      });
      try {
        const parked = await agent.send('Pay 5.', { sessionId: 's-a', principal: 'alice' });
        expect(parked.status).toBe('parked');
        const wait = parked.waits![0]!;
        // the principal is stored with the session and its wait, and reported
        expect((await sessionStore.get('s-a'))?.principal).toBe('alice');
        expect(wait.principal).toBe('alice');
        expect((await sessionStore.waits!.get('s-a', wait.id))?.principal).toBe('alice');
        expect(ofType(parked.events, 'session.started')[0]?.principal).toBe('alice');
        expect(requests.map((r) => [r.capability, r.principal])).toEqual([['pay', 'alice']]);
        expect(observed.map((e) => e.principal)).toEqual(['alice']);

        const before = await sessionStore.get('s-a');
        const asBob = { principal: 'bob' } as const;
        const mismatches = [
          (await collect(agent.run({ input: 'Pay me.', sessionId: 's-a', ...asBob }))).error,
          (await collect(agent.run({ input: 'Pay me.', sessionId: 's-a' }))).error,
          await failure(agent.send('Pay me.', { sessionId: 's-a', ...asBob })),
          (await collect(agent.resume('s-a', asBob))).error,
          (await collect(agent.resume('s-a'))).error,
          await failure(agent.steer('s-a', 'Pay Bob instead.', asBob)),
          await failure(agent.steer('s-a', 'Pay Bob instead.')),
          await failure(agent.decide('s-a', wait.id, { decision: 'allow' }, asBob)),
          await failure(agent.decide('s-a', wait.id, { decision: 'allow' })),
        ];
        for (const error of mismatches) {
          expect(error?.code).toBe('PRINCIPAL_MISMATCH');
          expect(error?.details).toEqual({ sessionId: 's-a' });
          // the message names neither principal
          expect(error?.message).not.toContain('alice');
        }
        // her transcript, status and wait are exactly as they were; nothing ran
        const after = await sessionStore.get('s-a');
        expect(after?.messages).toEqual(before?.messages);
        expect(after?.status).toBe('parked');
        expect(after?.updatedAt).toBe(before?.updatedAt);
        expect((await sessionStore.waits!.get('s-a', wait.id))?.status).toBe('pending');
        expect(runs).toEqual([]);
        expect(model.requests).toHaveLength(1);

        // Alice herself decides and resumes; no steering of Bob's was queued
        await agent.decide('s-a', wait.id, { decision: 'allow' }, { principal: 'alice' });
        const resumed = await collect(agent.resume('s-a', { principal: 'alice' }));
        expect(resumed.error).toBeUndefined();
        expect(runs).toEqual(['pay:5']);
        const done = await sessionStore.get('s-a');
        expect(done?.status).toBe('completed');
        expect(JSON.stringify(done?.messages)).not.toContain('Bob');
        expect(ofType(resumed.events, 'session.started')[0]?.principal).toBe('alice');
      } finally {
        await agent.close();
      }
    });

    it('a session stored without a principal is the local user’s: Alice cannot continue it', async () => {
      const sessionStore = await store();
      const model = scriptedModel([{ text: 'one' }, { text: 'two' }]);
      const agent = createAgent({ model, sessionStore });
      try {
        await agent.send('hi', { sessionId: 'local' });
        expect('principal' in ((await sessionStore.get('local')) ?? {})).toBe(false);
        const before = await sessionStore.get('local');
        const refused = await failure(agent.send('hi', { sessionId: 'local', principal: 'alice' }));
        expect(refused.code).toBe('PRINCIPAL_MISMATCH');
        expect((await sessionStore.get('local'))?.messages).toEqual(before?.messages);
        // the local user continues it
        expect((await agent.send('again', { sessionId: 'local' })).text).toBe('two');
      } finally {
        await agent.close();
      }
    });

    it('a delegated run (asTool of a child agent) acts for the calling run’s principal', async () => {
      const sessionStore = await store();
      const seen: AuthorizationRequest[] = [];
      const runs: string[] = [];
      const payer = createAgent({
        model: scriptedModel([
          { toolCalls: [{ name: 'pay', arguments: { n: 2 }, id: 'call_p' }] },
          { text: 'Paid 2.' },
        ]),
        tools: [pay(runs)],
        sessionStore,
        policy: {
          rules: [{ id: 'record', authorize: (req) => (seen.push(req), 'allow') }],
        },
      }).child({ name: 'payer-child' });
      const withTool = createAgent({
        model: scriptedModel([
          { toolCalls: [{ name: 'payer', arguments: { prompt: 'Pay 2.' }, id: 'call_h' }] },
          { text: 'Done.' },
        ]),
        tools: [payer.asTool({ name: 'payer', description: 'Pays.' })],
        sessionStore,
        policy: { allow: ['payer'] },
      });
      try {
        const sent = await withTool.send('Pay 2 through the payer.', { principal: 'alice' });
        expect(sent.text).toBe('Done.');
        expect(runs).toEqual(['pay:2']);
        expect(seen.map((r) => r.principal)).toEqual(['alice']);
        const started = ofType(sent.events, 'session.started');
        expect(started).toHaveLength(2);
        expect(started.map((e) => e.principal)).toEqual(['alice', 'alice']);
        const sub = started.find((e) => e.sessionId !== sent.sessionId)!;
        expect((await sessionStore.get(sub.sessionId))?.principal).toBe('alice');
      } finally {
        await withTool.close();
      }
    });
  });
}

describe('policy requests carry the principal', () => {
  it('a rule sees it on the MCP connection and on the MCP tool call of the run', async () => {
    const requests: AuthorizationRequest[] = [];
    const server = createSdkMcpServer({
      name: 'files',
      tools: [
        sdkTool('read', 'Reads.', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] })),
      ],
    });
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'mcp__files__read', arguments: {} }] },
        { text: 'Read.' },
      ]),
      mcpServers: { files: { type: 'sdk', server } },
      mcp: { strictConfig: true },
      policy: {
        rules: [{ id: 'record', authorize: (req) => (requests.push(req), undefined) }],
        allow: ['mcp_connect:*', 'mcp__files__*'],
      },
    });
    try {
      const sent = await agent.send('Read.', { principal: 'alice' });
      expect(sent.text).toBe('Read.');
      expect(requests.map((r) => [r.kind, r.capability, r.principal])).toEqual([
        ['connection', 'mcp_connect:files', 'alice'],
        ['tool', 'mcp__files__read', 'alice'],
      ]);
    } finally {
      await agent.close();
    }
  });
});

describe('principals at the edges (review)', () => {
  it('a local-user run stamps no principal, even one a tool source put on its request', async () => {
    const requests: AuthorizationRequest[] = [];
    const source: ToolExecutor = {
      listTools: () => [],
      prepareRun: async (ctx: ExecutorRunContext) => {
        await ctx.authorize({
          kind: 'connection',
          capability: 'mcp_connect:forged',
          sessionId: ctx.sessionId,
          runId: ctx.runId,
          principal: 'mallory',
        });
      },
      execute: async () => 'unused',
    };
    const agent = createAgent({
      model: scriptedModel([{ text: 'ok' }]),
      toolExecutor: source,
      policy: {
        rules: [{ id: 'record', authorize: (req) => (requests.push(req), undefined) }],
        allow: ['mcp_connect:*'],
      },
    });
    try {
      await agent.send('hi');
      expect(requests.map((r) => [r.capability, r.principal])).toEqual([
        ['mcp_connect:forged', undefined],
      ]);
      expect(requests[0]).not.toHaveProperty('principal');
    } finally {
      await agent.close();
    }
  });

  it('a steer whose session read finds nothing is refused, though the session appears meanwhile', async () => {
    const store = new MemorySessionStore();
    const agent = createAgent({
      model: scriptedModel([{ text: 'one' }, { text: 'two' }]),
      sessionStore: store,
    });
    try {
      // Bob's read comes before Alice's run creates the session: the store's steer would then succeed
      const get = store.get.bind(store);
      let raced = false;
      store.get = async (id: string) => {
        if (raced) return get(id);
        raced = true;
        await agent.send('hi', { sessionId: 's', principal: 'alice' });
        return undefined;
      };
      await expect(agent.steer('s', 'BOB SAYS', { principal: 'bob' })).rejects.toMatchObject({
        code: 'SESSION_NOT_FOUND',
      });
      store.get = get;
      const next = await collect(agent.run({ input: 'again', sessionId: 's', principal: 'alice' }));
      expect(ofType(next.events, 'steering.delivered')).toEqual([]);
      const texts = (await store.get('s'))!.messages.flatMap((m) =>
        m.role === 'user' ? m.content.map((c) => (c.type === 'text' ? c.text : '')) : [],
      );
      expect(texts).not.toContain('BOB SAYS');
    } finally {
      await agent.close();
    }
  });
});

describe('query() takes a principal', () => {
  it('refuses a bad one, and acts for a good one', async () => {
    const sessionStore = new MemorySessionStore();
    expect(() =>
      query({ prompt: 'hi', options: { model: scriptedModel([]), principal: '' } }),
    ).toThrow(/principal/);
    const q = query({
      prompt: 'hi',
      options: {
        model: scriptedModel([{ text: 'ok' }]),
        principal: 'alice',
        sessionStore,
        sessionId: 'q1',
      },
    });
    for await (const _ of q) void _;
    expect((await sessionStore.get('q1'))?.principal).toBe('alice');
    const bob = query({
      prompt: 'again',
      options: {
        model: scriptedModel([{ text: 'no' }]),
        principal: 'bob',
        sessionStore,
        sessionId: 'q1',
      },
    });
    const results = [];
    for await (const m of bob) if (m.type === 'result') results.push(m);
    expect(JSON.stringify(results)).toContain('PRINCIPAL_MISMATCH');
    expect((await sessionStore.get('q1'))?.messages).toHaveLength(2);
  });
});
