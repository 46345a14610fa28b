import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemorySessionStore, createAgent, scriptedModel, tool } from '../../src/index.js';
import type {
  AgentEvent,
  AuthorizationEvent,
  MusterError,
  SessionStore,
  ToolResultMessage,
} from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

/** A tool that counts how often it ran, by call. */
function counted(name: string, runs: string[], description = `Does ${name}.`) {
  return tool({
    name,
    description,
    input: z.object({ n: z.number() }),
    execute: ({ n }) => {
      runs.push(`${name}:${n}`);
      return `${name} done ${n}`;
    },
  });
}

async function failure(p: Promise<unknown>): Promise<MusterError> {
  try {
    await p;
  } catch (err) {
    return err as MusterError;
  }
  throw new Error('did not fail');
}

function toolResults(messages: readonly { role: string }[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === 'tool');
}

describe('parking an approval (SPEC 15.1)', () => {
  it('parks, is decided, and resumes: the tool runs once with the approved arguments', async () => {
    const store = new MemorySessionStore();
    const runs: string[] = [];
    const seen: AuthorizationEvent[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'pay', arguments: { n: 5 }, id: 'call_pay' }] },
      { text: 'Paid.' },
    ]);
    const agent = createAgent({
      model,
      tools: [counted('pay', runs)],
      sessionStore: store,
      policy: { park: true, observer: (e) => seen.push(e) },
    });
    const parked = await agent.send('Pay 5.', { sessionId: 's1' });
    expect(parked.status).toBe('parked');
    expect(parked.waits).toHaveLength(1);
    const wait = parked.waits![0]!;
    expect(wait).toMatchObject({
      sessionId: 's1',
      kind: 'approval',
      callId: 'call_pay',
      toolName: 'pay',
      arguments: { n: 5 },
      status: 'pending',
    });
    expect(wait.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(runs).toEqual([]);
    expect((await store.get('s1'))?.status).toBe('parked');
    expect(ofType(parked.events, 'wait.created')).toHaveLength(1);
    expect((await agent.sessions.waits({ sessionId: 's1' })).waits.map((w) => w.id)).toEqual([
      wait.id,
    ]);

    const decided = await agent.decide('s1', wait.id, { decision: 'allow', reason: 'ok by ana' });
    expect(decided).toMatchObject({ status: 'decided', decision: { decision: 'allow' } });
    const resumed = await collect(agent.resume('s1'));
    expect(resumed.error).toBeUndefined();
    expect(runs).toEqual(['pay:5']);
    expect(ofType(resumed.events, 'wait.decided')).toMatchObject([
      { waitId: wait.id, applied: true, expired: false },
    ]);
    expect(ofType(resumed.events, 'session.completed')[0]?.content).toBe('Paid.');
    const session = await store.get('s1');
    expect(session?.status).toBe('completed');
    expect(toolResults(session!.messages)).toMatchObject([
      {
        callId: 'call_pay',
        content: 'pay done 5',
        decidedBy: { waitId: wait.id, decision: 'allow', reason: 'ok by ana' },
      },
    ]);
    // the decision reached the policy observer when it was taken and when it applied
    expect(seen.filter((e) => e.callId === 'call_pay').map((e) => e.decision)).toEqual([
      'park',
      'allow',
      'allow',
    ]);
    // a used wait is gone; a second decision is refused
    expect((await agent.sessions.waits({ sessionId: 's1' })).waits).toEqual([]);
    await agent.close();
  });
});

/** An agent on `store` whose model calls `pay` once, then answers `Done.`. */
function payAgent(
  store: SessionStore,
  runs: string[],
  options: { deny?: string[]; description?: string; ttlMs?: number } = {},
) {
  return createAgent({
    model: scriptedModel([
      { toolCalls: [{ name: 'pay', arguments: { n: 7 }, id: 'call_pay' }] },
      (req) => ({ text: `Done: ${toolResults(req.messages).at(-1)?.content ?? ''}` }),
    ]),
    tools: [counted('pay', runs, options.description)],
    sessionStore: store,
    policy: { park: true, ...(options.deny ? { deny: options.deny } : {}) },
    ...(options.ttlMs !== undefined ? { waits: { ttlMs: options.ttlMs } } : {}),
  });
}

async function snapshot(store: MemorySessionStore, sessionId: string) {
  return JSON.stringify([await store.get(sessionId), await store.waits.list({ sessionId })]);
}

describe('parked sessions: edges', () => {
  it('resume with an undecided wait yields session.parked again and writes nothing', async () => {
    const store = new MemorySessionStore();
    const runs: string[] = [];
    const agent = payAgent(store, runs);
    const parked = await agent.send('Pay.', { sessionId: 'u' });
    const before = await snapshot(store, 'u');
    const again = await collect(agent.resume('u'));
    expect(again.error).toBeUndefined();
    expect(again.events.map((e) => e.type)).toEqual(['session.parked']);
    expect(ofType(again.events, 'session.parked')[0]?.waits.map((w) => w.id)).toEqual([
      parked.waits![0]!.id,
    ]);
    expect(await snapshot(store, 'u')).toBe(before);
    expect(runs).toEqual([]);
  });

  it('run({ sessionId, input }) on a parked session is SESSION_ALREADY_RUNNING naming its waits', async () => {
    const store = new MemorySessionStore();
    const agent = payAgent(store, []);
    const parked = await agent.send('Pay.', { sessionId: 'busy' });
    const before = await snapshot(store, 'busy');
    const err = await failure(agent.send('Something else.', { sessionId: 'busy' }));
    expect(err.code).toBe('SESSION_ALREADY_RUNNING');
    expect(err.message).toContain(parked.waits![0]!.id);
    expect(await snapshot(store, 'busy')).toBe(before);
  });

  it('a turn whose second of three calls parks runs the first and third once and the second after the decision', async () => {
    const store = new MemorySessionStore();
    const runs: string[] = [];
    const agent = createAgent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'a', arguments: { n: 1 }, id: 'c1' },
            { name: 'b', arguments: { n: 2 }, id: 'c2' },
            { name: 'c', arguments: { n: 3 }, id: 'c3' },
          ],
        },
        { text: 'All done.' },
      ]),
      tools: [counted('a', runs), counted('b', runs), counted('c', runs)],
      sessionStore: store,
      policy: { allow: ['a', 'c'], park: true },
    });
    const parked = await agent.send('Do all three.', { sessionId: 'three' });
    expect(parked.waits?.map((w) => w.callId)).toEqual(['c2']);
    expect(runs).toEqual(['a:1', 'c:3']);
    expect(toolResults((await store.get('three'))!.messages).map((m) => m.callId)).toEqual([
      'c1',
      'c3',
    ]);
    await agent.decide('three', parked.waits![0]!.id, { decision: 'allow' });
    const resumed = await collect(agent.resume('three'));
    expect(resumed.error).toBeUndefined();
    expect(runs).toEqual(['a:1', 'c:3', 'b:2']);
    const results = toolResults((await store.get('three'))!.messages);
    expect(results.map((m) => [m.callId, m.content])).toEqual([
      ['c1', 'a done 1'],
      ['c3', 'c done 3'],
      ['c2', 'b done 2'],
    ]);
    expect((await store.get('three'))?.status).toBe('completed');
  });

  it.each([
    ['the policy changed', { deny: ['not_pay'] }],
    ['the tool definition changed', { description: 'Pays, now differently.' }],
  ])(
    '%s between parking and resume: the old approval does not run it; a fresh wait appears',
    async (_what, change) => {
      const store = new MemorySessionStore();
      const runs: string[] = [];
      const first = await payAgent(store, runs).send('Pay.', { sessionId: 'drift' });
      const old = first.waits![0]!;
      const changed = payAgent(store, runs, change);
      await changed.decide('drift', old.id, { decision: 'allow' });
      const resumed = await collect(changed.resume('drift'));
      expect(resumed.error).toBeUndefined();
      expect(runs).toEqual([]);
      expect(ofType(resumed.events, 'wait.decided')).toMatchObject([
        { waitId: old.id, applied: false },
      ]);
      const fresh = ofType(resumed.events, 'session.parked')[0]!.waits;
      expect(fresh).toHaveLength(1);
      expect(fresh[0]!.id).not.toBe(old.id);
      expect(fresh[0]!.fingerprint).not.toBe(old.fingerprint);
      expect((await store.get('drift'))?.status).toBe('parked');
      // a host still showing the old call is told it changed; nothing is written
      const before = await snapshot(store, 'drift');
      const stale = await failure(
        changed.decide(
          'drift',
          fresh[0]!.id,
          { decision: 'allow' },
          { fingerprint: old.fingerprint },
        ),
      );
      expect(stale.code).toBe('WAIT_STALE');
      expect(await snapshot(store, 'drift')).toBe(before);
      // the fresh wait, decided, runs the call once
      await changed.decide(
        'drift',
        fresh[0]!.id,
        { decision: 'allow' },
        { fingerprint: fresh[0]!.fingerprint },
      );
      expect((await collect(changed.resume('drift'))).error).toBeUndefined();
      expect(runs).toEqual(['pay:7']);
    },
  );

  it('an expired approval is denied at resume (reason expired) and can no longer be decided', async () => {
    const store = new MemorySessionStore();
    const runs: string[] = [];
    const agent = payAgent(store, runs, { ttlMs: 1 });
    const parked = await agent.send('Pay.', { sessionId: 'late' });
    const wait = parked.waits![0]!;
    while (Date.now() <= Date.parse(wait.expiresAt!)) await new Promise((r) => setImmediate(r));
    const before = await snapshot(store, 'late');
    const err = await failure(agent.decide('late', wait.id, { decision: 'allow' }));
    expect(err).toMatchObject({ code: 'WAIT_NOT_FOUND', details: { reason: 'wait-expired' } });
    expect(await snapshot(store, 'late')).toBe(before);
    const resumed = await collect(agent.resume('late'));
    expect(resumed.error).toBeUndefined();
    expect(runs).toEqual([]);
    expect(ofType(resumed.events, 'wait.decided')).toMatchObject([
      { expired: true, applied: true },
    ]);
    const result = toolResults((await store.get('late'))!.messages)[0]!;
    expect(result).toMatchObject({
      isError: true,
      decidedBy: { waitId: wait.id, reason: 'expired' },
    });
    expect(result.content).toContain('TOOL_DENIED');
    expect(ofType(resumed.events, 'session.completed')[0]?.content).toContain('TOOL_DENIED');
  });

  it('a redirect decision does not run the call and gives the model the new instruction', async () => {
    const store = new MemorySessionStore();
    const runs: string[] = [];
    const agent = payAgent(store, runs);
    const parked = await agent.send('Pay.', { sessionId: 'redir' });
    await agent.decide('redir', parked.waits![0]!.id, {
      decision: 'redirect',
      message: 'Pay 3 instead.',
    });
    expect((await collect(agent.resume('redir'))).error).toBeUndefined();
    expect(runs).toEqual([]);
    const users = (await store.get('redir'))!.messages.filter((m) => m.role === 'user');
    expect(JSON.stringify(users.at(-1))).toContain('Pay 3 instead.');
  });

  it('ten concurrent decisions of one wait: exactly one wins', async () => {
    const store = new MemorySessionStore();
    const agent = payAgent(store, []);
    const parked = await agent.send('Pay.', { sessionId: 'race' });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        agent.decide('race', parked.waits![0]!.id, { decision: i % 2 ? 'allow' : 'deny' }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({
        code: 'WAIT_NOT_FOUND',
        details: { reason: 'wait-decided' },
      });
  });

  describe('bad decisions are typed and write nothing', () => {
    it.each([
      ['an unknown wait', 'wait_nope', { decision: 'allow' }, 'WAIT_NOT_FOUND'],
      [
        'an elicitation answer to an approval',
        undefined,
        { action: 'accept' },
        'INVALID_CONFIGURATION',
      ],
      [
        'a redirect without a message',
        undefined,
        { decision: 'redirect' },
        'INVALID_CONFIGURATION',
      ],
      ['an unknown decision', undefined, { decision: 'maybe' }, 'INVALID_CONFIGURATION'],
      ['an unknown key', undefined, { decision: 'allow', who: 'x' }, 'INVALID_CONFIGURATION'],
    ])('%s', async (_what, waitId, decision, code) => {
      const store = new MemorySessionStore();
      const agent = payAgent(store, []);
      const parked = await agent.send('Pay.', { sessionId: 'bad' });
      const before = await snapshot(store, 'bad');
      const err = await failure(
        agent.decide('bad', waitId ?? parked.waits![0]!.id, decision as never),
      );
      expect(err.code).toBe(code);
      expect(await snapshot(store, 'bad')).toBe(before);
    });
  });

  it('a park on a store without waits denies the call (TOOL_APPROVAL_REQUIRED); policy.park on it is refused at construction', async () => {
    const inner = new MemorySessionStore();
    // a custom store with the required methods only (no waits)
    const custom: SessionStore = {
      create: (s, o) => inner.create(s, o),
      get: (id) => inner.get(id),
      update: (id, p, o) => inner.update(id, p, o),
      delete: (id) => inner.delete(id),
    };
    expect(() => createAgent({ sessionStore: custom, policy: { park: true } })).toThrow(
      /keeps no waits.*put, get, list, decide and remove/,
    );
    const runs: string[] = [];
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'pay', arguments: { n: 1 } }] }, { text: 'ok' }]),
      tools: [counted('pay', runs)],
      sessionStore: custom,
      policy: { approve: () => ({ decision: 'park' }) },
    });
    const result = await agent.send('Pay.', { sessionId: 'nowaits' });
    expect(result.status).toBe('completed');
    expect(runs).toEqual([]);
    const denied = toolResults((await inner.get('nowaits'))!.messages)[0]!;
    expect(denied.content).toContain('TOOL_APPROVAL_REQUIRED');
    expect(denied.content).toContain('keeps no waits');
    expect((await inner.waits.list()).waits).toEqual([]);
  });
});

describe('an approver answering park', () => {
  it('parks the call; a later approver answer is not asked again once decided', async () => {
    const store = new MemorySessionStore();
    const runs: string[] = [];
    let asked = 0;
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'pay', arguments: { n: 9 } }] }, { text: 'ok' }]),
      tools: [counted('pay', runs)],
      sessionStore: store,
      policy: {
        approve: () => {
          asked++;
          return { decision: 'park', reason: 'needs a manager' };
        },
      },
    });
    const parked = await agent.send('Pay.', { sessionId: 'ap' });
    expect(parked.waits?.[0]).toMatchObject({ message: 'needs a manager' });
    await agent.decide('ap', parked.waits![0]!.id, { decision: 'allow' });
    const events: AgentEvent[] = [];
    for await (const ev of agent.resume('ap')) events.push(ev);
    expect(asked).toBe(1);
    expect(runs).toEqual(['pay:9']);
  });
});

describe('a resumed approval whose result was never committed', () => {
  it('is an unknown outcome at the next resume, never a second run of the approved call', async () => {
    const inner = new MemorySessionStore();
    let failResult = true;
    // the store refuses the approved call's result once: the run dies after the tool ran
    const store: SessionStore = {
      create: (s, o) => inner.create(s, o),
      get: (id) => inner.get(id),
      update: (id, patch, o) => {
        const result = patch.appendMessages?.some((m) => m.role === 'tool');
        if (result && failResult) {
          failResult = false;
          return Promise.reject(new Error('disk full'));
        }
        return inner.update(id, patch, o);
      },
      delete: (id) => inner.delete(id),
      acquire: (id, owner, ttl) => inner.acquire(id, owner, ttl),
      waits: inner.waits,
    };
    const runs: string[] = [];
    const agent = payAgent(store, runs);
    const parked = await agent.send('Pay.', { sessionId: 'once' });
    await agent.decide('once', parked.waits![0]!.id, { decision: 'allow' });
    const died = await collect(agent.resume('once'));
    expect(died.error?.code).toBe('SESSION_STORE_FAILED');
    expect(runs).toEqual(['pay:7']);
    // the wait left the store before the call ran: nothing can approve it again
    expect((await inner.waits.list({ sessionId: 'once' })).waits).toEqual([]);
    const again = await collect(agent.resume('once'));
    expect(again.error).toBeUndefined();
    expect(runs).toEqual(['pay:7']);
    const result = toolResults((await inner.get('once'))!.messages)[0]!;
    expect(result.content).toContain('TOOL_OUTCOME_UNKNOWN');
  });
});

describe('a wait inside a delegated run (asTool) parks the root run', () => {
  it('the root parks on a link; deciding it resumes the delegated run first, which runs the tool once', async () => {
    const store = new MemorySessionStore();
    const runs: string[] = [];
    const helper = payAgent(store, runs);
    const rootModel = scriptedModel([
      { toolCalls: [{ name: 'payer', arguments: { prompt: 'Pay 7.' }, id: 'call_payer' }] },
      (req) => ({ text: `Root: ${toolResults(req.messages).at(-1)?.content ?? ''}` }),
    ]);
    const root = createAgent({
      model: rootModel,
      tools: [helper.asTool({ name: 'payer', description: 'Pays.' })],
      sessionStore: store,
      policy: { allow: ['payer'] },
    });
    const parked = await root.send('Please pay.', { sessionId: 'root' });
    expect(parked.status).toBe('parked');
    expect(parked.waits).toHaveLength(1);
    const link = parked.waits![0]!;
    expect(link).toMatchObject({
      sessionId: 'root',
      kind: 'approval',
      callId: 'call_payer',
      toolName: 'pay',
      arguments: { n: 7 },
      status: 'pending',
      child: { waitId: expect.any(String) },
    });
    const childSession = link.child!.sessionId;
    expect((await store.get('root'))?.status).toBe('parked');
    expect((await store.get(childSession))?.status).toBe('parked');
    expect(runs).toEqual([]);

    // resumed before the decision: still parked, nothing written
    const before = await snapshot(store, 'root');
    const early = await collect(root.resume('root'));
    expect(early.events.map((e) => e.type)).toEqual(['session.parked']);
    expect(await snapshot(store, 'root')).toBe(before);
    const busy = await failure(root.send('Else.', { sessionId: 'root' }));
    expect(busy.code).toBe('SESSION_ALREADY_RUNNING');
    expect(busy.message).toContain(link.id);

    // deciding the root's link decides the delegated run's wait
    const decided = await root.decide('root', link.id, { decision: 'allow', reason: 'ok' });
    expect(decided).toMatchObject({
      id: link.id,
      sessionId: 'root',
      status: 'decided',
      decision: { decision: 'allow' },
    });
    expect(await store.waits.get(childSession, link.child!.waitId)).toMatchObject({
      status: 'decided',
    });
    expect((await root.sessions.waits({ sessionId: 'root' })).waits).toMatchObject([
      { id: link.id, status: 'decided', decision: { decision: 'allow' } },
    ]);
    const again = await failure(root.decide('root', link.id, { decision: 'deny' }));
    expect(again).toMatchObject({ code: 'WAIT_NOT_FOUND', details: { reason: 'wait-decided' } });

    const resumed = await collect(root.resume('root'));
    expect(resumed.error).toBeUndefined();
    expect(runs).toEqual(['pay:7']);
    // the delegated run continued first (its events are forwarded), then the root finished
    const completed = ofType(resumed.events, 'session.completed');
    expect(completed.map((e) => e.sessionId)).toEqual([childSession, 'root']);
    expect(completed[1]?.content).toBe('Root: Done: pay done 7');
    expect((await store.get(childSession))?.status).toBe('completed');
    expect((await store.waits.list({})).waits).toEqual([]);
  });

  it('a delegated run decided and resumed on its own: the root takes its stored answer, nothing runs twice', async () => {
    const store = new MemorySessionStore();
    const runs: string[] = [];
    const helper = payAgent(store, runs);
    const root = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'payer', arguments: { prompt: 'Pay 7.' }, id: 'call_payer' }] },
        (req) => ({ text: `Root: ${toolResults(req.messages).at(-1)?.content ?? ''}` }),
      ]),
      tools: [helper.asTool({ name: 'payer', description: 'Pays.' })],
      sessionStore: store,
      policy: { allow: ['payer'] },
    });
    const parked = await root.send('Please pay.', { sessionId: 'root-own' });
    const link = parked.waits![0]!;
    const child = link.child!;
    // the delegated run's own wait, decided and resumed directly (as the inbox offers)
    await helper.decide(child.sessionId, child.waitId, { decision: 'allow' });
    const own = await collect(helper.resume(child.sessionId));
    expect(own.error).toBeUndefined();
    expect(runs).toEqual(['pay:7']);
    expect((await root.sessions.waits({ sessionId: 'root-own' })).waits).toMatchObject([
      { id: link.id, status: 'decided' },
    ]);

    const resumed = await collect(root.resume('root-own'));
    expect(resumed.error).toBeUndefined();
    expect(runs).toEqual(['pay:7']);
    expect(ofType(resumed.events, 'session.completed').at(-1)?.content).toBe(
      'Root: Done: pay done 7',
    );
  });

  it('a delegated run on another store cannot park the root: the call says where its waits are', async () => {
    const runs: string[] = [];
    const helper = payAgent(new MemorySessionStore(), runs);
    const root = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'payer', arguments: { prompt: 'Pay.' }, id: 'c' }] },
        (req) => ({ text: toolResults(req.messages).at(-1)?.content ?? '' }),
      ]),
      tools: [helper.asTool({ name: 'payer', description: 'Pays.' })],
      sessionStore: new MemorySessionStore(),
      policy: { allow: ['payer'] },
    });
    const done = await root.send('Pay.', { sessionId: 'r2' });
    expect(done.status).toBe('completed');
    expect(done.text).toContain('TOOL_APPROVAL_REQUIRED');
    expect(runs).toEqual([]);
  });
});
