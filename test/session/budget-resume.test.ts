import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Agent, SessionState } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { BUDGET_LIMITS, budgetAgent } from '../fixtures/session/budget-family.js';
import { startChild } from '../support/child-agent.js';
import { collect } from '../support/run-helpers.js';

// A run's budget (SPEC 15.4) is stored with each step commit on a real SQLite file: a run that
// parks in one process, and one whose process is killed (SIGKILL), are resumed in this one and
// go on counting from the stored totals, with the limits they started with, to the same stop
// as a run that was never interrupted (4 turns of 30 tokens against maxTotalTokens 100).

describe('a budget across processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'muster-budget-resume-'));
  const path = join(dir, 'sessions.db');
  const store = new SqliteSessionStore({ path });

  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** How a run of the family ended, as the store has it. */
  async function ending(sessionId: string) {
    const session = (await store.get(sessionId)) as SessionState;
    return {
      status: session.status,
      error: session.error?.code,
      turns: session.messages.filter((m) => m.role === 'assistant').length,
      tokens: session.budget?.spent.tokens,
      toolCalls: session.budget?.spent.toolCalls,
      limits: session.budget?.limits,
      exhausted: session.budget?.exhausted,
      usage: session.usage.totalTokens,
    };
  }

  /** Resumes `sessionId` here once the lease of the process that ran it has expired. */
  async function resumeHere(agent: Agent, sessionId: string) {
    for (;;) {
      const run = await collect(agent.resume(sessionId));
      if (run.error?.code !== 'SESSION_ALREADY_RUNNING') return run;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  let uninterrupted: Awaited<ReturnType<typeof ending>>;

  it('an uninterrupted run stops at the 4th turn', async () => {
    const agent = budgetAgent(store);
    try {
      const { error } = await collect(
        agent.run({ input: 'work', sessionId: 'straight', limits: BUDGET_LIMITS }),
      );
      expect(error).toMatchObject({
        code: 'BUDGET_EXHAUSTED',
        details: { limit: 'maxTotalTokens', max: 100, spent: 120 },
      });
    } finally {
      await agent.close();
    }
    uninterrupted = await ending('straight');
    expect(uninterrupted).toEqual({
      status: 'failed',
      error: 'BUDGET_EXHAUSTED',
      turns: 4,
      tokens: 120,
      toolCalls: 3,
      limits: BUDGET_LIMITS,
      exhausted: 'maxTotalTokens',
      usage: 120,
    });
  });

  it('a run that parks in another process goes on counting here, and stops at the same limit', async () => {
    const child = startChild('test/fixtures/session/budget-agent.ts', {
      BUDGET_DB: path,
      BUDGET_SESSION: 'parked',
      BUDGET_PARK: '2',
    });
    const [status, waitId] = (await child.line('RESULT')).split(' ');
    expect(await child.exited).toMatchObject({ code: 0 });
    expect(status).toBe('parked');
    expect((await store.get('parked'))?.budget?.spent).toMatchObject({ tokens: 60, toolCalls: 2 });
    const agent = budgetAgent(store, { parkAt: 2 });
    try {
      await agent.decide('parked', waitId!, { decision: 'allow' });
      // no limits given: the run's own come back from the store
      const { error } = await collect(agent.resume('parked'));
      expect(error).toMatchObject({
        code: 'BUDGET_EXHAUSTED',
        details: { limit: 'maxTotalTokens', max: 100, spent: 120 },
      });
    } finally {
      await agent.close();
    }
    expect(await ending('parked')).toEqual(uninterrupted);
  }, 60_000);

  it('a run whose process is killed goes on counting here, and stops at the same limit', async () => {
    const child = startChild('test/fixtures/session/budget-agent.ts', {
      BUDGET_DB: path,
      BUDGET_SESSION: 'killed',
      BUDGET_HANG: '4',
    });
    await child.line('READY');
    child.child.kill('SIGKILL');
    await child.exited;
    // the third turn passed 80 % in the killed process: its warning is stored with the rest
    expect((await store.get('killed'))?.budget).toMatchObject({
      spent: { tokens: 90, toolCalls: 3 },
      warned: ['maxTotalTokens'],
    });
    const agent = budgetAgent(store);
    try {
      const { events, error } = await resumeHere(agent, 'killed');
      expect(error).toMatchObject({
        code: 'BUDGET_EXHAUSTED',
        details: { limit: 'maxTotalTokens', max: 100, spent: 120 },
      });
      // warned once per run, not again by the process that resumed it
      expect(events.filter((e) => e.type === 'budget.warning')).toEqual([]);
      expect(events.filter((e) => e.type === 'budget.exhausted')).toHaveLength(1);
    } finally {
      await agent.close();
    }
    expect(await ending('killed')).toEqual(uninterrupted);
  }, 60_000);
});
