import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemorySessionStore, createAgent, scriptedModel } from '../../src/index.js';
import type { McpElicitationAnswer, MusterError, ToolResultMessage } from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';
import { stdioConfig } from '../support/mcp-fixtures.js';

// SPEC 15.1, issue item 6: on a 2026-07-28 connection a server's `input_required` result parks
// the run with its `requestState`; the resumed run sends the call once more, with the answers.

const dir = mkdtempSync(join(tmpdir(), 'muster-input-park-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

interface Logged {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly inputResponses?: Record<string, unknown>;
  readonly requestState?: string;
}

function lines(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** An agent on the fixture server whose elicitation handler answers with `answer`. */
function bankAgent(
  model: ReturnType<typeof scriptedModel>,
  answer: () => McpElicitationAnswer,
  store = new MemorySessionStore(),
  waits?: { ttlMs: number },
) {
  const n = ++files;
  const log = join(dir, `calls-${n}.jsonl`);
  const effects = join(dir, `effects-${n}.txt`);
  const agent = createAgent({
    model,
    sessionStore: store,
    mcpServers: {
      bank: stdioConfig('input-parking-server.mjs', [`--log=${log}`, `--effects=${effects}`]),
    },
    mcp: { strictConfig: true, handlers: { elicitation: async () => answer() } },
    policy: { allow: ['mcp_connect:bank', 'mcp__bank'] },
    ...(waits ? { waits } : {}),
  });
  return {
    agent,
    store,
    calls: () => lines(log).map((l) => JSON.parse(l) as Logged),
    effects: () => lines(effects),
  };
}

const transfer = (amount: number, id = 'call_t') => ({
  toolCalls: [{ name: 'mcp__bank__transfer', arguments: { amount }, id }],
});

async function failure(p: Promise<unknown>): Promise<MusterError> {
  try {
    await p;
  } catch (err) {
    return err as MusterError;
  }
  throw new Error('did not fail');
}

describe('a server asking for input parks the run (input_required, SPEC 15.1)', () => {
  it('parks with the requestState, and the resumed run sends exactly one retry with the answer', async () => {
    const bank = bankAgent(scriptedModel([transfer(7), { text: 'Done.' }]), () => ({
      action: 'park',
    }));
    try {
      const parked = await bank.agent.send('Send 7.', { sessionId: 's-ir' });
      expect(parked.status).toBe('parked');
      expect(parked.waits).toHaveLength(1);
      const wait = parked.waits![0]!;
      expect(wait).toMatchObject({
        kind: 'elicitation',
        callId: 'call_t',
        toolName: 'mcp__bank__transfer',
        server: 'bank',
        message: 'Transfer 7?',
        inputKey: 'confirm',
        requestedSchema: { type: 'object', required: ['ok'] },
        status: 'pending',
      });
      // the server's state is kept in the store, never shown to hosts or in events
      expect(wait.requestState).toBeUndefined();
      expect(JSON.stringify(parked.events)).not.toContain('requestState');
      const stored = await bank.store.waits!.get('s-ir', wait.id);
      expect(typeof stored?.requestState).toBe('string');
      expect(bank.calls()).toHaveLength(1);
      expect(bank.effects()).toEqual([]);
      expect((await bank.store.get('s-ir'))?.status).toBe('parked');

      // resumed while the wait is undecided: parked again, nothing sent
      const early = await collect(bank.agent.resume('s-ir'));
      expect(early.events.at(-1)?.type).toBe('session.parked');
      expect(bank.calls()).toHaveLength(1);

      // an answer that does not match the form is refused; the wait is unchanged
      const bad = await failure(
        bank.agent.decide('s-ir', wait.id, { action: 'accept', content: { ok: 'yes' } }),
      );
      expect(bad.code).toBe('INVALID_CONFIGURATION');
      expect(await bank.store.waits!.get('s-ir', wait.id)).toEqual(stored);

      await bank.agent.decide('s-ir', wait.id, {
        action: 'accept',
        content: { ok: true, note: 'rent' },
        reason: 'ana confirmed',
      });
      const resumed = await collect(bank.agent.resume('s-ir'));
      expect(resumed.error).toBeUndefined();
      expect(ofType(resumed.events, 'wait.decided')).toMatchObject([
        { waitId: wait.id, applied: true, expired: false },
      ]);

      const calls = bank.calls();
      expect(calls).toHaveLength(2);
      expect(calls[0]).toEqual({ tool: 'transfer', args: { amount: 7 }, pid: expect.any(Number) });
      expect(calls[1]).toMatchObject({
        tool: 'transfer',
        inputResponses: { confirm: { action: 'accept', content: { ok: true, note: 'rent' } } },
        requestState: { amount: 7 }, // the server verified the state it minted
      });
      expect(bank.effects()).toHaveLength(1);
      const session = await bank.store.get('s-ir');
      expect(session?.status).toBe('completed');
      const result = session!.messages.find((m): m is ToolResultMessage => m.role === 'tool');
      expect(result).toMatchObject({
        callId: 'call_t',
        content: 'transferred 7 (rent)',
        decidedBy: { waitId: wait.id, decision: 'accept', reason: 'ana confirmed' },
      });
      expect((await bank.store.waits!.list({ sessionId: 's-ir' })).waits).toEqual([]);
    } finally {
      await bank.agent.close();
    }
  });

  it('an expired elicitation wait is answered `cancel` at resume', async () => {
    const store = new MemorySessionStore();
    const bank = bankAgent(
      scriptedModel([transfer(3), { text: 'Declined.' }]),
      () => ({ action: 'park' }),
      store,
      { ttlMs: 1 },
    );
    try {
      const parked = await bank.agent.send('Send 3.', { sessionId: 's-exp' });
      const wait = parked.waits![0]!;
      while (Date.now() <= Date.parse(wait.expiresAt!)) await new Promise((r) => setImmediate(r));
      const late = await failure(bank.agent.decide('s-exp', wait.id, { action: 'accept' }));
      expect(late).toMatchObject({ code: 'WAIT_NOT_FOUND', details: { reason: 'wait-expired' } });
      const resumed = await collect(bank.agent.resume('s-exp'));
      expect(resumed.error).toBeUndefined();
      expect(ofType(resumed.events, 'wait.decided')).toMatchObject([
        { waitId: wait.id, applied: true, expired: true },
      ]);
      const calls = bank.calls();
      expect(calls).toHaveLength(2);
      expect(calls[1]?.inputResponses).toEqual({ confirm: { action: 'cancel' } });
      expect(bank.effects()).toEqual([]);
      const result = (await store.get('s-exp'))!.messages.find(
        (m): m is ToolResultMessage => m.role === 'tool',
      );
      expect(result?.content).toBe('transfer declined (cancel)');
    } finally {
      await bank.agent.close();
    }
  });

  it('a handler that answers at once is sent back in the same call, without parking', async () => {
    const bank = bankAgent(scriptedModel([transfer(2), { text: 'Done.' }]), () => ({
      action: 'accept',
      content: { ok: true },
    }));
    try {
      const done = await bank.agent.send('Send 2.', { sessionId: 's-now' });
      expect(done.status).toBe('completed');
      expect(bank.calls()).toHaveLength(2);
      expect(bank.effects()).toHaveLength(1);
    } finally {
      await bank.agent.close();
    }
  });

  it('a tool with an output schema: the question parks and the complete answer is checked against it', async () => {
    const bank = bankAgent(
      scriptedModel([
        {
          toolCalls: [
            { name: 'mcp__bank__typed-transfer', arguments: { amount: 4 }, id: 'call_ok' },
            {
              name: 'mcp__bank__typed-transfer',
              arguments: { amount: 5, bad: true },
              id: 'call_bad',
            },
          ],
        },
        { text: 'Done.' },
      ]),
      () => ({ action: 'park' }),
    );
    try {
      const parked = await bank.agent.send('Typed.', { sessionId: 's-typed' });
      expect(parked.status).toBe('parked');
      expect(parked.waits).toHaveLength(2);
      for (const w of parked.waits!)
        await bank.agent.decide('s-typed', w.id, { action: 'accept', content: { ok: true } });
      const resumed = await collect(bank.agent.resume('s-typed'));
      expect(resumed.error).toBeUndefined();
      const results = (await bank.store.get('s-typed'))!.messages.filter(
        (m): m is ToolResultMessage => m.role === 'tool',
      );
      const ok = results.find((r) => r.callId === 'call_ok');
      const bad = results.find((r) => r.callId === 'call_bad');
      expect(ok).toMatchObject({ isError: false });
      expect(ok?.content).toContain('typed 4');
      expect(bad?.isError).toBe(true);
      expect(bad?.content).toMatch(/output/i);
      expect(bank.calls()).toHaveLength(4);
    } finally {
      await bank.agent.close();
    }
  });

  it('a call approved from a wait, then parked on a question, is not asked again on resume', async () => {
    const store = new MemorySessionStore();
    const n = ++files;
    const log = join(dir, `calls-${n}.jsonl`);
    const effects = join(dir, `effects-${n}.txt`);
    const agent = createAgent({
      model: scriptedModel([transfer(9), { text: 'Done.' }]),
      sessionStore: store,
      mcpServers: {
        bank: stdioConfig('input-parking-server.mjs', [`--log=${log}`, `--effects=${effects}`]),
      },
      mcp: { strictConfig: true, handlers: { elicitation: async () => ({ action: 'park' }) } },
      policy: { allow: ['mcp_connect:bank'], park: true },
    });
    try {
      const first = await agent.send('Send 9.', { sessionId: 's-both' });
      expect(first.waits?.map((w) => w.kind)).toEqual(['approval']);
      await agent.decide('s-both', first.waits![0]!.id, { decision: 'allow', reason: 'ok' });
      const second = await collect(agent.resume('s-both'));
      const parkedAgain = ofType(second.events, 'session.parked').at(-1);
      expect(parkedAgain?.waits.map((w) => w.kind)).toEqual(['elicitation']);
      expect(parkedAgain?.waits[0]?.approvedBy).toMatchObject({
        waitId: first.waits![0]!.id,
        decision: 'allow',
      });
      await agent.decide('s-both', parkedAgain!.waits[0]!.id, {
        action: 'accept',
        content: { ok: true },
      });
      const third = await collect(agent.resume('s-both'));
      expect(third.error).toBeUndefined();
      expect(ofType(third.events, 'session.parked')).toEqual([]);
      expect(lines(log)).toHaveLength(2);
      expect(lines(effects)).toHaveLength(1);
      expect((await store.get('s-both'))?.status).toBe('completed');
    } finally {
      await agent.close();
    }
  });

  it('two questions in one round park as two waits; the run resumes once both are decided', async () => {
    const bank = bankAgent(
      scriptedModel([
        { toolCalls: [{ name: 'mcp__bank__two-forms', arguments: {}, id: 'call_2' }] },
        { text: 'Booked.' },
      ]),
      () => ({ action: 'park' }),
    );
    try {
      const parked = await bank.agent.send('Book.', { sessionId: 's-two' });
      expect(parked.waits?.map((w) => w.inputKey).sort()).toEqual(['when', 'who']);
      const [a, b] = parked.waits!;
      const byKey = (w: typeof a) =>
        w!.inputKey === 'who'
          ? { action: 'accept' as const, content: { name: 'Ana' } }
          : { action: 'accept' as const, content: { day: 'Monday' } };
      await bank.agent.decide('s-two', a!.id, byKey(a));
      const half = await collect(bank.agent.resume('s-two'));
      expect(half.events.at(-1)?.type).toBe('session.parked');
      await bank.agent.decide('s-two', b!.id, byKey(b));
      const resumed = await collect(bank.agent.resume('s-two'));
      expect(resumed.error).toBeUndefined();
      expect(bank.calls()).toHaveLength(2);
      const result = (await bank.store.get('s-two'))!.messages.find(
        (m): m is ToolResultMessage => m.role === 'tool',
      );
      expect(result?.content).toBe('booked Ana on Monday');
    } finally {
      await bank.agent.close();
    }
  });

  it('a requestState over mcp.maxResponseBytes fails the call and parks nothing', async () => {
    const store = new MemorySessionStore();
    const n = ++files;
    const log = join(dir, `calls-${n}.jsonl`);
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'mcp__bank__huge-state', arguments: { bytes: 5000 }, id: 'c' }] },
        { text: 'It failed.' },
      ]),
      sessionStore: store,
      mcpServers: { bank: stdioConfig('input-parking-server.mjs', [`--log=${log}`]) },
      mcp: {
        strictConfig: true,
        maxResponseBytes: 4096,
        handlers: { elicitation: async () => ({ action: 'park' }) },
      },
      policy: { allow: ['mcp_connect:bank', 'mcp__bank'] },
    });
    try {
      const done = await agent.send('Go.', { sessionId: 's-huge' });
      expect(done.status).toBe('completed');
      expect((await store.waits!.list({ sessionId: 's-huge' })).waits).toEqual([]);
      const result = (await store.get('s-huge'))!.messages.find(
        (m): m is ToolResultMessage => m.role === 'tool',
      );
      expect(result?.isError).toBe(true);
      expect(result?.content).toMatch(/TOOL_EXECUTION_FAILED|TOOL_RESULT_TOO_LARGE/);
      expect(lines(log)).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });
});
