import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Agent, SessionState } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { BUDGET_LIMITS, budgetAgent, delegatingAgent } from '../fixtures/session/budget-family.js';
import { startChild } from '../support/child-agent.js';
import { collect } from '../support/run-helpers.js';

// A run's budget (SPEC 15.4) is stored with each step commit on a real SQLite file: a run that
// parks in one process, and one whose process is killed (SIGKILL), are resumed in this one and
// go on counting from the stored totals, with the limits they started with, to the same stop
// as a run that was never interrupted (4 turns of 30 tokens against maxTotalTokens 100). What
// a delegated run spends reaches its caller's stored budget as it goes, so a process killed
// during a delegated run loses none of it.

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
  async function resumeHere(agent: Pick<Agent, 'resume'>, sessionId: string) {
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

  it('a run killed during its delegated run keeps what the delegated turns spent, and resumed here goes on from it', async () => {
    const child = startChild('test/fixtures/session/budget-delegating-agent.ts', {
      BUDGET_DB: path,
      BUDGET_SESSION: 'delegating',
      BUDGET_HANG: '3',
    });
    await child.line('READY');
    child.child.kill('SIGKILL');
    await child.exited;
    // the lead's turn (10) and its researcher's two turns (30 each) before the third hung,
    // with the lead's call and the researcher's two: none of it had reached a step commit of
    // the lead
    expect((await store.get('delegating'))?.budget).toMatchObject({
      limits: BUDGET_LIMITS,
      spent: { tokens: 70, toolCalls: 3 },
      warned: [],
    });
    const { lead, close } = delegatingAgent(store);
    try {
      const { events, error } = await resumeHere(lead, 'delegating');
      // the call in flight is unknown; the lead's next turn (80) asks again, and the new
      // delegated run's first turn spends the budget (110): it is not started over
      expect(error).toMatchObject({
        code: 'BUDGET_EXHAUSTED',
        details: { limit: 'maxTotalTokens', max: 100, spent: 110 },
      });
      const started = events.filter((e) => e.type === 'session.started');
      const leadRun = started[0]!.runId;
      const turns = events.filter((e) => e.type === 'model.completed');
      expect(turns.filter((e) => e.runId === leadRun)).toHaveLength(1);
      expect(events.find((e) => e.type === 'tool.completed' && e.runId === leadRun)).toMatchObject({
        toolName: 'researcher',
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
      });
      // one delegated run here, stopped after its first turn (its session has it)
      expect(started).toHaveLength(2);
      const delegated = await store.get(started[1]!.sessionId);
      expect(delegated?.messages.filter((m) => m.role === 'assistant')).toHaveLength(1);
    } finally {
      await close();
    }
    expect((await store.get('delegating'))?.budget).toMatchObject({
      spent: { tokens: 110, toolCalls: 4 },
      warned: ['maxTotalTokens'],
      exhausted: 'maxTotalTokens',
    });
  }, 60_000);
});
