import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/index.js';
import { describeWaitContract } from './wait-contract.js';
import { sessionState } from '../support/session-state.js';

/** A store made for one test, and how to dispose of it. */
export interface StoreUnderTest {
  readonly store: SessionStore;
  readonly cleanup: () => Promise<void>;
}

/** A second handle on the same storage (another process's view), when the store has one. */
export type StoreFactory = () => Promise<
  StoreUnderTest & { reopen?: () => Promise<StoreUnderTest> }
>;

/** A new session's state (status `running`); `extra` replaces any of it. */
export const newState = sessionState;

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const user = (text: string) => ({
  role: 'user' as const,
  content: [{ type: 'text' as const, text }],
});

/** The one contract every session store meets: memory, SQLite and PostgreSQL run it. */
export function describeStoreContract(
  name: string,
  factory: StoreFactory,
  kind: { readonly durable: boolean },
): void {
  describe(`the session store contract: ${name}`, () => {
    const opened: StoreUnderTest[] = [];
    const open = async () => {
      const s = await factory();
      opened.push(s);
      return s;
    };
    afterEach(async () => {
      for (const s of opened.splice(0).reverse()) await s.cleanup();
    });

    it('creates, reads and appends: the transcript only grows, usage adds up, errors clear', async () => {
      const { store } = await open();
      await store.create(newState('a', { messages: [user('hi')] }));
      await store.update('a', {
        appendMessages: [{ role: 'assistant', content: [{ type: 'text', text: 'yo' }] }],
        addUsage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
        appendArchiveRefs: ['ref_1'],
        appendStartedCalls: ['c1'],
        iteration: 1,
        error: { code: 'X', message: 'bad' },
      });
      await store.update('a', { addUsage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } });
      let got = await store.get('a');
      expect(got).toMatchObject({
        id: 'a',
        status: 'running',
        iteration: 1,
        usage: { inputTokens: 4, outputTokens: 3, totalTokens: 7 },
        archiveRefs: ['ref_1'],
        startedCalls: ['c1'],
        error: { code: 'X', message: 'bad' },
      });
      expect(got!.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      await store.update('a', { status: 'completed', finalContent: 'done', error: null });
      got = await store.get('a');
      expect(got).toMatchObject({ status: 'completed', finalContent: 'done' });
      expect(got!.error).toBeUndefined();
      expect(await store.get('nope')).toBeUndefined();
    });

    it('keeps a typed final answer as JSON until a later run clears it', async () => {
      const { store } = await open();
      const value = { n: 3, tags: ['a', 'b'], nested: { ok: true, none: null } };
      await store.create(newState('typed', { finalOutput: 'created' }));
      expect((await store.get('typed'))?.finalOutput).toBe('created');
      await store.update('typed', { status: 'completed', finalOutput: { value } });
      expect((await store.get('typed'))?.finalOutput).toEqual(value);
      // a patch without it keeps it; JSON null is a value, not an absence
      await store.update('typed', { iteration: 2 });
      expect((await store.get('typed'))?.finalOutput).toEqual(value);
      await store.update('typed', { finalOutput: { value: null } });
      const kept = await store.get('typed');
      expect(kept && 'finalOutput' in kept).toBe(true);
      expect(kept?.finalOutput).toBeNull();
      await store.update('typed', { finalOutput: null });
      expect('finalOutput' in ((await store.get('typed')) ?? {})).toBe(false);
    });

    it('a patch field present with the value undefined changes nothing, as an absent one', async () => {
      const { store } = await open();
      await store.create(newState('u', { messages: [user('hi')] }));
      await store.update('u', {
        status: 'completed',
        iteration: 2,
        finalContent: 'done',
        finalOutput: { value: { n: 1 } },
        error: { code: 'X', message: 'bad' },
        addUsage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      });
      const before = await store.get('u');
      await store.update('u', {
        status: undefined,
        iteration: undefined,
        finalContent: undefined,
        finalOutput: undefined,
        addUsage: undefined,
        appendMessages: undefined,
        appendArchiveRefs: undefined,
        appendStartedCalls: undefined,
        error: undefined,
        appendEvents: undefined,
        budget: undefined,
      });
      const after = await store.get('u');
      expect({ ...after, updatedAt: undefined }).toEqual({ ...before, updatedAt: undefined });
    });

    it('keeps the principal a session was created for, through every update (SPEC 15.4)', async () => {
      const { store } = await open();
      const principal = "alice@example.com \u00e9\u{1F600} 'quoted'";
      await store.create(newState('owned', { principal }));
      await store.create(newState('local'));
      await store.update('owned', {
        status: 'completed',
        appendMessages: [user('x')],
        finalContent: 'done',
        error: null,
      });
      expect((await store.get('owned'))?.principal).toBe(principal);
      // a session created without one belongs to the local user: no principal, not ''
      expect('principal' in ((await store.get('local')) ?? {})).toBe(false);
    });

    it('keeps the latest run budget, replaced by each commit that carries one, and sums costs exactly (SPEC 15.4)', async () => {
      const { store } = await open();
      await store.create(newState('b'));
      expect('budget' in ((await store.get('b')) ?? {})).toBe(false);
      const budget = (tokens: number, costUsd: number) => ({
        limits: { maxTotalTokens: 1000, maxCostUsd: 0.01, onBudgetExhausted: 'finish' as const },
        spent: { tokens, costUsd, toolCalls: 2, durationMs: 37 },
        warned: ['maxTotalTokens' as const],
      });
      // 0.1 + 0.2 is not 0.3 in floating point: stored costs add as whole picodollars
      await store.update('b', {
        addUsage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, costUsd: 0.1 },
        budget: budget(10, 0.000001),
      });
      await store.update('b', {
        addUsage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, costUsd: 0.2 },
        budget: { ...budget(900, 0.0095), exhausted: 'maxTotalTokens' as const },
      });
      // a commit without one keeps it
      await store.update('b', { iteration: 3 });
      const got = await store.get('b');
      expect(got?.usage).toEqual({ inputTokens: 2, outputTokens: 2, totalTokens: 4, costUsd: 0.3 });
      expect(got?.budget).toEqual({ ...budget(900, 0.0095), exhausted: 'maxTotalTokens' });
      // a later run without a budget clears it
      await store.update('b', { status: 'running', budget: null });
      expect('budget' in ((await store.get('b')) ?? {})).toBe(false);
    });

    it('refuses unknown ids and duplicate creates with stable codes', async () => {
      const { store } = await open();
      await expect(store.update('missing', { iteration: 1 })).rejects.toMatchObject({
        code: 'SESSION_NOT_FOUND',
      });
      await store.create(newState('dup'));
      await expect(store.create(newState('dup'))).rejects.toMatchObject({
        code: 'SESSION_ALREADY_RUNNING',
      });
    });

    it('lists in pages by id, with a cursor, a limit and a status filter', async () => {
      const { store } = await open();
      for (let i = 0; i < 7; i++)
        await store.create(newState(`s${i}`, { status: i % 2 === 0 ? 'completed' : 'running' }));
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list!({ limit: 3, ...(cursor ? { cursor } : {}) });
        seen.push(...page.sessions.map((s) => s.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      expect(seen).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6']);
      expect(pages).toBe(3);
      const running = await store.list!({ status: 'running' });
      expect(running.sessions.map((s) => s.id)).toEqual(['s1', 's3', 's5']);
      expect(running.nextCursor).toBeUndefined();
    });

    it('leases: one live owner, a higher fencing token on takeover, stale writes refused', async () => {
      const { store } = await open();
      await store.create(newState('l'));
      // a TTL that outlasts the next five calls on a loaded machine, and a wait past it
      const first = await store.acquire!('l', 'one', 1_000);
      expect(first).toBeDefined();
      expect(await store.acquire!('l', 'two', 1_000)).toBeUndefined();
      await store.update('l', { appendMessages: [user('by one')] }, { lease: first! });
      // a write without a lease, while one is live, is refused too
      await expect(store.update('l', { iteration: 9 })).rejects.toMatchObject({
        code: 'SESSION_ALREADY_RUNNING',
      });
      await expect(store.delete('l')).rejects.toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
      await first!.renew();
      await wait(1_300); // well past the TTL: the lease is lost
      await expect(
        store.update('l', { appendMessages: [user('late')] }, { lease: first! }),
      ).rejects.toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
      await expect(first!.renew()).rejects.toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
      const second = await store.acquire!('l', 'two', 5_000);
      expect(second!.token).toBeGreaterThan(first!.token);
      await expect(
        store.update('l', { appendMessages: [user('stale')] }, { lease: first! }),
      ).rejects.toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
      await first!.release(); // a lost lease's release leaves the new owner alone
      expect(await store.acquire!('l', 'three', 5_000)).toBeUndefined();
      await store.update('l', { appendMessages: [user('by two')] }, { lease: second! });
      const texts = (await store.get('l'))!.messages.map((m) =>
        m.role === 'user' && m.content[0]!.type === 'text' ? m.content[0]!.text : '',
      );
      expect(texts).toEqual(['by one', 'by two']);
      expect((await store.get('l'))!.iteration).toBe(0);
      await second!.release();
      const third = await store.acquire!('l', 'three', 5_000);
      expect(third!.token).toBeGreaterThan(second!.token);
      await third!.release();
      await store.delete('l');
      expect(await store.get('l')).toBeUndefined();
    });

    it('a session deleted and created again never hands out an old lease token', async () => {
      const { store } = await open();
      await store.create(newState('again'));
      const old = await store.acquire!('again', 'one', 5_000);
      await old!.release();
      await store.delete('again');
      await store.create(newState('again'));
      const fresh = await store.acquire!('again', 'two', 5_000);
      expect(fresh!.token).not.toBe(old!.token);
      // the old holder's writes are fenced off from the new lease
      await expect(
        store.update('again', { appendMessages: [user('stale')] }, { lease: old! }),
      ).rejects.toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
      await fresh!.release();
      expect((await store.get('again'))!.messages).toHaveLength(0);
    });

    it('a lease can be taken before the session exists and its writes create it', async () => {
      const { store } = await open();
      const lease = await store.acquire!('fresh', 'one', 5_000);
      await store.create(newState('fresh'), { lease: lease! });
      await store.update('fresh', { appendMessages: [user('x')] }, { lease: lease! });
      expect((await store.get('fresh'))!.messages).toHaveLength(1);
      await lease!.release();
    });

    // the memory store lives in one process and keeps no archive: these apply to durable ones
    if (kind.durable)
      it('another handle on the same storage sees every commit and the same leases', async () => {
        const s = (await open()) as Awaited<ReturnType<StoreFactory>>;
        if (!s.reopen) throw new Error('a durable store under test must offer reopen()');
        const other = await s.reopen();
        opened.push(other);
        await s.store.create(newState('shared', { principal: 'bob' }));
        expect((await other.store.get('shared'))?.principal).toBe('bob');
        const lease = await s.store.acquire!('shared', 'one', 5_000);
        await s.store.update('shared', { appendMessages: [user('x')] }, { lease: lease! });
        expect((await other.store.get('shared'))!.messages).toHaveLength(1);
        expect(await other.store.acquire!('shared', 'two', 5_000)).toBeUndefined();
        await lease!.release();
        expect(await other.store.acquire!('shared', 'two', 5_000)).toBeDefined();
      });

    if (kind.durable)
      it('keeps an archive per session: text and binary items, deletion', async () => {
        const { store } = await open();
        const archive = store.archive!;
        const base = { kind: 'text' as const, mimeType: 'text/plain', toolName: 't', callId: 'c' };
        const a = await archive.put({ ...base, sessionId: 's1', bytes: 5, text: 'hello' });
        const png = Buffer.from([0, 1, 2, 250, 255]).toString('base64');
        const b = await archive.put({
          ...base,
          kind: 'binary',
          mimeType: 'image/png',
          sessionId: 's1',
          bytes: 5,
          data: png,
        });
        expect(a.ref).toMatch(/^ref_[0-9a-z]+$/);
        expect(await archive.get('s1', a.ref)).toMatchObject({ text: 'hello', sessionId: 's1' });
        expect((await archive.get('s1', b.ref))!.data).toBe(png);
        expect(await archive.get('s2', a.ref)).toBeUndefined();
        expect((await archive.list('s1')).map((i) => i.ref)).toEqual([a.ref, b.ref]);
        await archive.deleteSession('s1');
        expect(await archive.list('s1')).toEqual([]);
      });

    describeWaitContract(factory, kind);
  });
}
