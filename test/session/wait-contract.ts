import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStore, SessionWaits, Wait, WaitDecision } from '../../src/index.js';
import type { StoreFactory, StoreUnderTest } from './store-contract.js';
import { sessionState } from '../support/session-state.js';

/** A pending wait of `kind` (approval unless said). */
export function pendingWait(sessionId: string, id: string, extra: Partial<Wait> = {}): Wait {
  return {
    id,
    sessionId,
    runId: 'run_1',
    kind: 'approval',
    callId: `call_${id}`,
    toolName: 'deploy',
    arguments: { env: 'prod', replicas: 3 },
    createdAt: '2026-01-02T03:04:05.000Z',
    fingerprint: 'f'.repeat(64),
    status: 'pending',
    ...extra,
  };
}

function waitsOf(store: SessionStore): SessionWaits {
  if (!store.waits) throw new Error('a store under the wait contract must keep waits');
  return store.waits;
}

/** The stored wait as text: a failed call must leave it byte for byte as it was. */
async function snapshot(waits: SessionWaits, sessionId: string, id: string): Promise<string> {
  const got = await waits.get(sessionId, id);
  if (!got) throw new Error(`wait ${sessionId}/${id} is missing`);
  return JSON.stringify(got);
}

const allow: WaitDecision = { decision: 'allow', reason: 'ok by ann' };

/** The waits part of the store contract (SPEC 15.1): memory, SQLite and PostgreSQL run it. */
export function describeWaitContract(
  factory: StoreFactory,
  kind: { readonly durable: boolean },
): void {
  describe('waits', () => {
    const opened: StoreUnderTest[] = [];
    const open = async () => {
      const s = await factory();
      opened.push(s);
      return s;
    };
    afterEach(async () => {
      for (const s of opened.splice(0).reverse()) await s.cleanup();
    });

    it('puts, gets and lists waits in (session, id) order, with filters and a cursor', async () => {
      const waits = waitsOf((await open()).store);
      // put out of order; ids and sessions compare as strings ('w10' < 'w2', 'B' < 'a' < 'a-b')
      const put = [
        pendingWait('b', 'w1', { kind: 'elicitation', message: 'Name?', requestedSchema: {} }),
        pendingWait('a', 'w2'),
        pendingWait('a-b', 'w1'),
        pendingWait('a', 'w10', { status: 'decided', decision: allow, decidedAt: 'x' }),
        pendingWait('B', 'w1', { kind: 'auth', server: 'gh', principal: 'ann' }),
        pendingWait('a', 'w1', { expiresAt: '2999-01-01T00:00:00.000Z' }),
      ];
      for (const w of put) await waits.put(w);
      expect(await waits.get('a', 'w1')).toEqual(put[5]);
      expect(await waits.get('b', 'w1')).toEqual(put[0]);
      expect(await waits.get('a', 'nope')).toBeUndefined();
      expect(await waits.get('nope', 'w1')).toBeUndefined();

      const order = ['B/w1', 'a/w1', 'a/w10', 'a/w2', 'a-b/w1', 'b/w1'];
      const ids = (ws: readonly Wait[]) => ws.map((w) => `${w.sessionId}/${w.id}`);
      expect(ids((await waits.list()).waits)).toEqual(order);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await waits.list({ limit: 4, ...(cursor !== undefined ? { cursor } : {}) });
        seen.push(...ids(page.waits));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined);
      expect(seen).toEqual(order);
      expect(pages).toBe(2);

      expect(ids((await waits.list({ sessionId: 'a' })).waits)).toEqual(['a/w1', 'a/w10', 'a/w2']);
      expect(ids((await waits.list({ kind: 'elicitation' })).waits)).toEqual(['b/w1']);
      expect(ids((await waits.list({ status: 'decided' })).waits)).toEqual(['a/w10']);
      const pendingApprovals = { kind: 'approval', status: 'pending', limit: 1 } as const;
      const first = await waits.list(pendingApprovals);
      expect(ids(first.waits)).toEqual(['a/w1']);
      const second = await waits.list({ ...pendingApprovals, cursor: first.nextCursor! });
      expect(ids(second.waits)).toEqual(['a/w2']);
      const third = await waits.list({ ...pendingApprovals, cursor: second.nextCursor! });
      expect(ids(third.waits)).toEqual(['a-b/w1']);
      expect(third.nextCursor).toBeUndefined();
      expect((await waits.list({ sessionId: 'a', cursor: 'a\u0000w10' })).waits).toEqual([put[1]]);
    });

    it('pages 100 waits by default, at most 1000', async () => {
      const waits = waitsOf((await open()).store);
      for (let i = 0; i < 101; i++)
        await waits.put(pendingWait('many', `w${String(i).padStart(3, '0')}`));
      const page = await waits.list();
      expect(page.waits).toHaveLength(100);
      expect(page.nextCursor).toBeDefined();
      const rest = await waits.list({ cursor: page.nextCursor! });
      expect(rest.waits.map((w) => w.id)).toEqual(['w100']);
      expect(rest.nextCursor).toBeUndefined();
      expect((await waits.list({ limit: 5000 })).waits).toHaveLength(101);
      expect((await waits.list({ limit: 0 })).waits).toHaveLength(100);
    });

    it('decides an approval once: a second decision is WAIT_NOT_FOUND (decided) and changes nothing', async () => {
      const waits = waitsOf((await open()).store);
      await waits.put(pendingWait('s', 'w1'));
      const now = Date.parse('2026-02-03T04:05:06.007Z');
      const decided = await waits.decide('s', 'w1', allow, { now, fingerprint: 'f'.repeat(64) });
      const expected = {
        ...pendingWait('s', 'w1'),
        status: 'decided',
        decision: { decision: 'allow', reason: 'ok by ann' },
        decidedAt: '2026-02-03T04:05:06.007Z',
      };
      expect(decided).toEqual(expected);
      expect(await waits.get('s', 'w1')).toEqual(expected);
      expect((await waits.list({ status: 'pending' })).waits).toEqual([]);
      const before = await snapshot(waits, 's', 'w1');
      const again = waits.decide('s', 'w1', { decision: 'deny', reason: 'too late' });
      await expect(again).rejects.toMatchObject({
        code: 'WAIT_NOT_FOUND',
        message: expect.stringMatching(/already decided/),
        details: { sessionId: 's', waitId: 'w1', reason: 'wait-decided' },
      });
      expect(await snapshot(waits, 's', 'w1')).toBe(before);
    });

    it('a put replaces a pending wait, and never turns a decided one back into pending', async () => {
      const waits = waitsOf((await open()).store);
      const handle = (status: string, polledAt: string) => ({
        taskId: 'task-1',
        status,
        createdAt: '2026-01-02T03:04:05.000Z',
        ttlMs: null,
        acceptedAt: '2026-01-02T03:04:05.000Z',
        polledAt,
      });
      const held = pendingWait('s', 'task', {
        kind: 'task',
        server: 't',
        task: handle('working', '2026-01-02T03:04:06.000Z'),
      });
      await waits.put(held);
      // the run polls on and parks again on the same wait: its task's latest state replaces it
      const polled = { ...held, task: handle('working', '2026-01-02T03:05:00.000Z') };
      await waits.put(polled);
      expect(await waits.get('s', 'task')).toEqual(polled);
      // a person cancels it from another process, while a run that read it pending still
      // polls; that run parks again on the same wait id: the decision stays
      const cancelled = await waits.decide('s', 'task', { decision: 'cancel', reason: 'ann' });
      const stored = await snapshot(waits, 's', 'task');
      await waits.put({ ...polled, task: handle('working', '2026-01-02T03:06:00.000Z') });
      expect(await snapshot(waits, 's', 'task')).toBe(stored);
      expect(await waits.get('s', 'task')).toEqual(cancelled);
      expect((await waits.list({ status: 'pending' })).waits).toEqual([]);
      expect((await waits.list({ status: 'decided' })).waits).toEqual([cancelled]);
      // removed once used, the id may be put again
      await waits.remove('s', ['task']);
      await waits.put(held);
      expect(await waits.get('s', 'task')).toEqual(held);
    });

    it('answers an elicitation wait with its content, and denies or redirects approvals', async () => {
      const waits = waitsOf((await open()).store);
      await waits.put(pendingWait('s', 'form', { kind: 'elicitation', message: 'Name?' }));
      await waits.put(pendingWait('s', 'deny'));
      await waits.put(pendingWait('s', 'redirect'));
      const answer = { action: 'accept', content: { name: 'Ann', n: 2 } } as const;
      expect((await waits.decide('s', 'form', answer)).decision).toEqual(answer);
      expect((await waits.get('s', 'form'))!.decision).toEqual(answer);
      await waits.decide('s', 'deny', { decision: 'deny' });
      expect((await waits.get('s', 'deny'))!.decision).toEqual({ decision: 'deny' });
      const redirect = { decision: 'redirect', message: 'staging first' } as const;
      await waits.decide('s', 'redirect', redirect);
      expect(await waits.get('s', 'redirect')).toMatchObject({
        status: 'decided',
        decision: redirect,
      });
    });

    it('an unknown wait is WAIT_NOT_FOUND (unknown); an expired one (expired) stays as it was', async () => {
      const waits = waitsOf((await open()).store);
      await expect(waits.decide('s', 'ghost', allow)).rejects.toMatchObject({
        code: 'WAIT_NOT_FOUND',
        details: { sessionId: 's', waitId: 'ghost', reason: 'wait-unknown' },
      });
      expect(await waits.get('s', 'ghost')).toBeUndefined();
      await waits.put(pendingWait('s', 'old', { expiresAt: '2020-01-01T00:00:00.000Z' }));
      await waits.put(pendingWait('s', 'soon', { expiresAt: '2030-01-01T00:00:00.000Z' }));
      for (const [id, options] of [
        ['old', {}],
        ['soon', { now: Date.parse('2030-01-01T00:00:00.001Z') }],
      ] as const) {
        const before = await snapshot(waits, 's', id);
        await expect(waits.decide('s', id, allow, options)).rejects.toMatchObject({
          code: 'WAIT_NOT_FOUND',
          message: expect.stringMatching(/expired/),
          details: { reason: 'wait-expired' },
        });
        expect(await snapshot(waits, 's', id)).toBe(before);
      }
      expect((await waits.list({ status: 'pending' })).waits).toHaveLength(2);
    });

    it('a fingerprint other than the stored one is WAIT_STALE and changes nothing', async () => {
      const waits = waitsOf((await open()).store);
      await waits.put(pendingWait('s', 'w'));
      const before = await snapshot(waits, 's', 'w');
      await expect(
        waits.decide('s', 'w', allow, { fingerprint: 'e'.repeat(64) }),
      ).rejects.toMatchObject({ code: 'WAIT_STALE', details: { sessionId: 's', waitId: 'w' } });
      expect(await snapshot(waits, 's', 'w')).toBe(before);
    });

    it('a decision of the wrong shape is INVALID_CONFIGURATION and changes nothing', async () => {
      const waits = waitsOf((await open()).store);
      await waits.put(pendingWait('s', 'approve'));
      await waits.put(pendingWait('s', 'form', { kind: 'elicitation' }));
      await waits.put(pendingWait('s', 'task', { kind: 'task' }));
      await waits.put(
        pendingWait('s', 'sign-in', { kind: 'auth', server: 'gh', principal: 'ann' }),
      );
      const wrong: [string, unknown][] = [
        ['approve', { action: 'accept', content: {} }],
        ['approve', { decision: 'redirect' }],
        ['approve', { decision: 'allow', because: 'x' }],
        ['approve', { decision: 'maybe' }],
        ['approve', { decision: 'allow', reason: 7 }],
        ['form', { decision: 'allow' }],
        ['form', { action: 'accept', content: ['not', 'an', 'object'] }],
        ['task', allow],
        ['task', { action: 'cancel' }],
        ['task', { decision: 'cancel', message: 'x' }],
        ['sign-in', { decision: 'deny' }],
        ['sign-in', { action: 'accept' }],
        ['sign-in', { decision: 'allow', message: 'x' }],
      ];
      for (const [id, decision] of wrong) {
        const before = await snapshot(waits, 's', id);
        await expect(
          waits.decide('s', id, decision as WaitDecision),
          `${id} decided with ${JSON.stringify(decision)}`,
        ).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
        expect(await snapshot(waits, 's', id)).toBe(before);
      }
      expect((await waits.list({ status: 'pending' })).waits).toHaveLength(4);
      // an auth wait takes the sign-in's decision only
      const signedIn = await waits.decide('s', 'sign-in', {
        decision: 'allow',
        reason: 'signed in',
      });
      expect(signedIn).toMatchObject({
        status: 'decided',
        decision: { decision: 'allow', reason: 'signed in' },
      });
      // a task wait takes one decision: cancel its task (SPEC 15.3)
      const cancelled = await waits.decide('s', 'task', {
        decision: 'cancel',
        reason: 'not needed',
      });
      expect(cancelled).toMatchObject({
        status: 'decided',
        decision: { decision: 'cancel', reason: 'not needed' },
      });
      expect((await waits.get('s', 'task'))?.decision).toEqual({
        decision: 'cancel',
        reason: 'not needed',
      });
    });

    it('put and remove are lease-guarded writes; decide needs no lease', async () => {
      const { store } = await open();
      const waits = waitsOf(store);
      await store.create(newSession('l'));
      await waits.put(pendingWait('l', 'kept'));
      const first = await store.acquire!('l', 'one', 150);
      await waits.put(pendingWait('l', 'mine'), { lease: first! });
      // no lease while a live one is held
      const held = { code: 'SESSION_ALREADY_RUNNING' };
      await expect(waits.put(pendingWait('l', 'intruder'))).rejects.toMatchObject(held);
      await expect(waits.remove('l', ['kept'])).rejects.toMatchObject(held);
      // the holder's lease lapses and another run takes the session over
      await new Promise((r) => setTimeout(r, 400));
      const second = await store.acquire!('l', 'two', 5_000);
      await expect(waits.put(pendingWait('l', 'late'), { lease: first! })).rejects.toMatchObject(
        held,
      );
      await expect(waits.remove('l', ['kept'], { lease: first! })).rejects.toMatchObject(held);
      expect(await waits.get('l', 'intruder')).toBeUndefined();
      expect(await waits.get('l', 'late')).toBeUndefined();
      expect(await waits.get('l', 'kept')).toBeDefined();
      // a decision is taken by anyone, lease or not
      await waits.decide('l', 'kept', allow);
      await waits.remove('l', ['kept', 'mine', 'never-was'], { lease: second! });
      expect((await waits.list({ sessionId: 'l' })).waits).toEqual([]);
      await second!.release();
      await waits.put(pendingWait('l', 'after'));
      expect(await waits.get('l', 'after')).toBeDefined();
    });

    it('deleting a session deletes its waits, and only its own', async () => {
      const { store } = await open();
      const waits = waitsOf(store);
      await store.create(newSession('gone'));
      await store.create(newSession('stays'));
      await waits.put(pendingWait('gone', 'w1'));
      await waits.put(pendingWait('gone', 'w2'));
      await waits.put(pendingWait('stays', 'w1'));
      await store.delete('gone');
      expect(await waits.get('gone', 'w1')).toBeUndefined();
      expect((await waits.list()).waits.map((w) => w.sessionId)).toEqual(['stays']);
    });

    it(`of 10 concurrent decisions of one wait exactly one wins${kind.durable ? ' (two handles)' : ''}`, async () => {
      const s = (await open()) as Awaited<ReturnType<StoreFactory>>;
      const handles = [waitsOf(s.store)];
      if (kind.durable) {
        if (!s.reopen) throw new Error('a durable store under test must offer reopen()');
        const other = await s.reopen();
        opened.push(other);
        handles.push(waitsOf(other.store));
      }
      await handles[0]!.put(pendingWait('race', 'w'));
      // warm up: connections open (and schemas checked) before the race, so the decisions meet
      await Promise.all(
        handles.flatMap((h) => Array.from({ length: 5 }, () => h.get('race', 'w'))),
      );
      const settled = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          handles[i % handles.length]!.decide('race', 'w', { decision: 'allow', reason: `#${i}` }),
        ),
      );
      const won = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      expect(won).toHaveLength(1);
      for (const r of settled)
        if (r.status === 'rejected')
          expect(r.reason).toMatchObject({
            code: 'WAIT_NOT_FOUND',
            details: { reason: 'wait-decided' },
          });
      for (const h of handles) expect(await h.get('race', 'w')).toEqual(won[0]);
    });
  });
}

function newSession(id: string) {
  return sessionState(id, { status: 'parked' });
}
