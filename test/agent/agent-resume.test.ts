import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createSdkMcpServer,
  MemorySessionStore,
  scriptedModel,
  sdkTool,
  tool,
} from '../../src/index.js';
import type { SessionLease, SessionState, ToolResultMessage } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { collect, deferred, ofType } from '../support/run-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'muster-resume-'));
  dirs.push(dir);
  return join(dir, 'sessions.db');
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => new Date().toISOString();

/** A session as a run that died left it: the model asked for two calls, the first had started. */
function deadRun(id: string): SessionState {
  return {
    id,
    status: 'running',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'pay twice' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', callId: 'c1', name: 'charge', arguments: {} },
          { type: 'tool-call', callId: 'c2', name: 'charge', arguments: {} },
        ],
      },
    ],
    iteration: 1,
    createdAt: now(),
    updatedAt: now(),
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    archiveRefs: [],
    startedCalls: ['c1'],
  };
}

describe('agent.resume', () => {
  it('takes over a dead run once its lease expires: in-flight call unknown, never replayed', async () => {
    const store = new SqliteSessionStore({ path: dbPath() });
    await store.create(deadRun('d'));
    await store.acquire('d', 'crashed-replica', 200);
    let charges = 0;
    const charge = tool({
      name: 'charge',
      description: 'Charges.',
      input: z.object({}),
      execute: () => `charged ${++charges}`,
    });
    const model = scriptedModel([{ text: 'one charge is unknown; none was repeated' }]);
    const agent = createAgent({
      model,
      tools: [charge],
      policy: { allow: ['*'] },
      sessionStore: store,
    });
    // the lease of the dead run is still live: nobody may take the session yet
    const early = await collect(agent.resume('d'));
    expect(early.error?.code).toBe('SESSION_ALREADY_RUNNING');
    await wait(400);
    const { events, error } = await collect(agent.resume('d'));
    expect(error).toBeUndefined();
    expect(ofType(events, 'session.started')[0]).toMatchObject({ continued: true });
    expect(ofType(events, 'session.completed')[0]?.iterations).toBe(2);
    expect(charges).toBe(0);
    const sent = model.requests[0]!.messages as ToolResultMessage[];
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(sent[2]!.content).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\]/);
    expect(sent[3]!.content).toMatch(/^Error \[ABORTED\]: the run ended before this call started/);
    expect(await store.get('d')).toMatchObject({ status: 'completed', iteration: 2 });
    await agent.close();
    store.close();
  });

  it('item-06: resume() reports tool.completed for each call it repairs, with executed and the code', async () => {
    const store = new MemorySessionStore();
    await store.create(deadRun('r6'));
    const model = scriptedModel([{ text: 'done' }]);
    const agent = createAgent({ model, policy: { allow: ['*'] }, sessionStore: store });
    try {
      const { events, error } = await collect(agent.resume('r6'));
      expect(error).toBeUndefined();
      const completed = ofType(events, 'tool.completed');
      expect(completed).toHaveLength(2);
      // the call in flight may have run: unknown; the one that never started did not run
      expect(completed[0]).toMatchObject({
        callId: 'c1',
        toolName: 'charge',
        isError: true,
        executed: true,
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
        sessionId: 'r6',
        durationMs: 0,
      });
      expect(completed[0]!.content).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\]/);
      expect(completed[1]).toMatchObject({ callId: 'c2', isError: true, executed: false });
      expect(completed[1]!.errorCode).toBeUndefined();
      // after session.started, before the first model turn, in the run's own ids
      const types = events.map((e) => e.type);
      expect(types.indexOf('tool.completed')).toBeGreaterThan(types.indexOf('session.started'));
      expect(types.indexOf('tool.completed')).toBeLessThan(types.indexOf('model.completed'));
      expect(completed[0]!.runId).toBe(ofType(events, 'session.started')[0]!.runId);
    } finally {
      await agent.close();
    }
  });

  it('fails with stable codes for an unknown session and one with no run to resume', async () => {
    const agent = createAgent({ model: scriptedModel([{ text: 'a' }]) });
    expect((await collect(agent.resume('nope'))).error?.code).toBe('SESSION_NOT_FOUND');
    await agent.send('hi', { sessionId: 'done' });
    const { error, events } = await collect(agent.resume('done'));
    expect(error?.code).toBe('INVALID_CONFIGURATION');
    expect(ofType(events, 'session.failed')).toHaveLength(1);
    await agent.close();
  });

  it('completes a run that died after committing its final answer, without another model turn', async () => {
    const store = new MemorySessionStore();
    const state = deadRun('f');
    await store.create({
      ...state,
      messages: [
        state.messages[0]!,
        { role: 'assistant', content: [{ type: 'text', text: 'all done' }] },
      ],
      startedCalls: [],
    });
    const model = scriptedModel([]);
    const agent = createAgent({ model, sessionStore: store });
    const { events, error } = await collect(agent.resume('f'));
    expect(error).toBeUndefined();
    expect(ofType(events, 'session.completed')[0]?.content).toBe('all done');
    expect(model.requests).toHaveLength(0);
    expect(await store.get('f')).toMatchObject({ status: 'completed', finalContent: 'all done' });
  });
});

describe('per-step commits', () => {
  it("commits each call's start before it runs and each result before the next call starts", async () => {
    const store = new SqliteSessionStore({ path: dbPath() });
    const seen: { messages: string[]; started: readonly string[] }[] = [];
    const step = tool({
      name: 'step',
      description: 'A step.',
      input: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        const s = (await store.get('p'))!;
        seen.push({
          messages: s.messages.map((m) => (m.role === 'tool' ? `tool:${m.callId}` : m.role)),
          started: s.startedCalls ?? [],
        });
        return `step ${n}`;
      },
    });
    const agent = createAgent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'step', arguments: { n: 1 }, id: 'a' },
            { name: 'step', arguments: { n: 2 }, id: 'b' },
          ],
        },
        { text: 'ok' },
      ]),
      tools: [step],
      policy: { allow: ['*'] },
      sessionStore: store,
    });
    await agent.send('go', { sessionId: 'p' });
    expect(seen).toEqual([
      { messages: ['user', 'assistant'], started: ['a'] },
      { messages: ['user', 'assistant', 'tool:a'], started: ['a', 'b'] },
    ]);
    await agent.close();
    store.close();
  });
});

describe('leases during a run', () => {
  it('a run longer than its lease keeps it by renewing; nobody can take the session meanwhile', async () => {
    const store = new SqliteSessionStore({ path: dbPath() });
    const inTool = deferred();
    const finish = deferred();
    const slow = tool({
      name: 'slow',
      description: 'Slow.',
      input: z.object({}),
      execute: async () => {
        inTool.resolve();
        await finish.promise;
        return 'done';
      },
    });
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'ok' }]),
      tools: [slow],
      policy: { allow: ['*'] },
      sessionStore: store,
      sessionLeaseMs: 200,
    });
    const run = collect(agent.run({ input: 'x', sessionId: 'long' }));
    await inTool.promise;
    await wait(1_000); // five lease lifetimes
    expect(await store.acquire('long', 'intruder', 200)).toBeUndefined();
    finish.resolve();
    const { error } = await run;
    expect(error).toBeUndefined();
    expect(await store.get('long')).toMatchObject({ status: 'completed', finalContent: 'ok' });
    // the lease was released at the end: the session can be claimed at once
    expect(await store.acquire('long', 'next', 200)).toBeDefined();
    await agent.close();
    store.close();
  });

  it('a run that cannot renew its lease stops with SESSION_ALREADY_RUNNING; its late writes are fenced off', async () => {
    /** A real memory store whose renewals stop reaching it, like a replica cut off from the database. */
    class PartitionedStore extends MemorySessionStore {
      partitioned = false;
      override async acquire(id: string, owner: string, ttl: number) {
        const lease = await super.acquire(id, owner, ttl);
        if (!lease) return undefined;
        const renew = async () => {
          if (this.partitioned) throw new Error('connection timed out');
          return lease.renew();
        };
        return { ...lease, token: lease.token, owner: lease.owner, renew } as SessionLease;
      }
    }
    const store = new PartitionedStore();
    const inTool = deferred();
    const finish = deferred();
    const slow = tool({
      name: 'slow',
      description: 'Slow.',
      input: z.object({}),
      execute: async () => {
        inTool.resolve();
        await finish.promise;
        return 'late result';
      },
    });
    const a = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'a' }]),
      tools: [slow],
      policy: { allow: ['*'] },
      sessionStore: store,
      // long enough that a loaded machine reaches the resume below while it still holds
      sessionLeaseMs: 1_500,
    });
    const run = collect(a.run({ input: 'x', sessionId: 'l' }));
    await inTool.promise;
    store.partitioned = true;
    const { error, events } = await run; // ends before the lease could expire unrenewed
    expect(error?.code).toBe('SESSION_ALREADY_RUNNING');
    expect(ofType(events, 'session.failed')).toHaveLength(1);
    store.partitioned = false;
    const b = createAgent({ model: scriptedModel([{ text: 'resumed' }]), sessionStore: store });
    // the run stopped while its lease still held: another run takes the session once it expires
    let resumed = await collect(b.resume('l'));
    expect(resumed.error?.code).toBe('SESSION_ALREADY_RUNNING');
    for (let i = 0; resumed.error?.code === 'SESSION_ALREADY_RUNNING' && i < 400; i++) {
      await wait(20);
      resumed = await collect(b.resume('l'));
    }
    expect(resumed.error).toBeUndefined();
    finish.resolve(); // the first run's tool now finishes: nothing of it may reach the store
    await a.awaitIdle();
    await wait(50);
    const s = (await store.get('l'))!;
    expect(JSON.stringify(s.messages)).not.toContain('late result');
    expect(s).toMatchObject({ status: 'completed', finalContent: 'resumed' });
  });
});

describe('the archive kept in a durable store', () => {
  it('pages an archived result after a restart, from a new agent on the same file', async () => {
    const path = dbPath();
    const server = () =>
      createSdkMcpServer({
        name: 'docs',
        tools: [
          sdkTool('dump', 'Dumps.', {}, async () => ({
            content: [{ type: 'text', text: `begin-${'x'.repeat(40_000)}-end` }],
          })),
        ],
      });
    const options = {
      modelName: 'm',
      mcp: { strictConfig: true },
      policy: { allow: ['mcp_connect:*', 'mcp__docs__*', 'context'] },
    };
    const first = new SqliteSessionStore({ path });
    const a = createAgent({
      ...options,
      model: scriptedModel([
        { toolCalls: [{ name: 'mcp__docs__dump', arguments: {} }] },
        { text: 'ok' },
      ]),
      mcpServers: { docs: { type: 'sdk', server: server() } },
      sessionStore: first,
    });
    const { events } = await collect(a.run({ input: 'dump', sessionId: 'arc' }));
    const ref = /ref=(ref_[a-z0-9]+)/.exec(ofType(events, 'tool.completed')[0]!.content)![1]!;
    await a.close();
    first.close();

    const second = new SqliteSessionStore({ path });
    const model = scriptedModel([
      { toolCalls: [{ name: 'context', arguments: { ref, offset: 40_000 } }] },
      { text: 'read' },
    ]);
    const b = createAgent({
      ...options,
      model,
      mcpServers: { docs: { type: 'sdk', server: server() } },
      sessionStore: second,
    });
    const read = await collect(b.run({ input: 'read the end', sessionId: 'arc' }));
    expect(read.error).toBeUndefined();
    const page = ofType(read.events, 'tool.completed').find((e) => e.toolName === 'context')!;
    expect(page.isError).toBe(false);
    expect(page.content).toContain('-end');
    await b.close();
    second.close();
  });
});
