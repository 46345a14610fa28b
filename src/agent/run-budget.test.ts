import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MusterError } from '../errors/index.js';
import type { Usage } from '../model/index.js';
import { RunBudget } from './run-budget.js';
import type { BudgetEvent, RunBudgetInit } from './run-budget.js';

/** The longest delay `setTimeout` honours; a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The timers a budget sets, held here: none fires unless the test fires it, and the clock a
 * budget reads (`performance.now()`) moves only when the test moves it.
 */
function heldClock() {
  const live = new Map<number, { fire: () => void; delay: number }>();
  const delays: number[] = [];
  let last = 0;
  let now = 1000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fire: () => void, delay: number) => {
    live.set(++last, { fire, delay });
    delays.push(delay);
    return last;
  }) as unknown as typeof setTimeout);
  vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((id: number) => {
    live.delete(id);
  }) as unknown as typeof clearTimeout);
  return {
    live,
    delays,
    get now() {
      return now;
    },
    /** Moves the clock to the next timer and fires it. */
    next(): void {
      const [id, timer] = [...live][0]!;
      live.delete(id);
      now += timer.delay;
      timer.fire();
    },
    advance(ms: number): void {
      now += ms;
    },
  };
}

function budget(init: Partial<RunBudgetInit> & Pick<RunBudgetInit, 'limits'>) {
  const events: BudgetEvent[] = [];
  const exhausted: MusterError[] = [];
  const b = new RunBudget({
    sessionId: 's',
    runId: 'r',
    startedAt: performance.now(),
    emit: (e) => events.push(e),
    onExhausted: (e) => exhausted.push(e),
    ...init,
  });
  return { budget: b, events, exhausted };
}

const usage = (tokens: number): Usage => ({
  inputTokens: tokens,
  outputTokens: 0,
  totalTokens: tokens,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('RunBudget', () => {
  it('waits out a maxDurationMs longer than a timer can wait, timer after timer, one live at a time', () => {
    const clock = heldClock();
    const max = 30 * 24 * 3_600_000; // 30 days: over 2^31 - 1 ms
    const { budget: b, events, exhausted } = budget({ limits: { maxDurationMs: max } });
    let fired = 0;
    while (exhausted.length === 0 && fired < 100) {
      expect(clock.live.size).toBe(1);
      clock.next();
      fired++;
    }
    expect(Math.max(...clock.delays)).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(events.map((e) => [e.type, e.spent])).toEqual([
      ['budget.warning', max * 0.8],
      ['budget.exhausted', max],
    ]);
    expect(exhausted[0]).toMatchObject({
      code: 'BUDGET_EXHAUSTED',
      details: { limit: 'maxDurationMs', max },
    });
    // a few timers (a save every tenth of the limit, the warning, the end), none left
    expect(fired).toBeLessThanOrEqual(12);
    expect(clock.live.size).toBe(0);
    b.close();
  });

  it('closing it clears its one timer', () => {
    const clock = heldClock();
    const { budget: b } = budget({ limits: { maxDurationMs: 5 * MAX_TIMER_MS } });
    expect(clock.live.size).toBe(1);
    b.close();
    expect(clock.live.size).toBe(0);
  });

  it('under maxDurationMs, saves itself when a tenth of the limit passed unrecorded', async () => {
    const clock = heldClock();
    const save = vi.fn();
    const { budget: b } = budget({ limits: { maxDurationMs: 100_000 }, save });
    clock.next(); // 10 s unrecorded
    await Promise.resolve();
    expect(save).toHaveBeenCalledTimes(1);
    // a step commit records it at 15 s: the next save is due 10 s later, at 25 s
    clock.advance(5_000);
    expect(b.record().spent.durationMs).toBe(15_000);
    clock.next();
    expect(clock.now - 1000).toBe(25_000);
    await Promise.resolve();
    expect(save).toHaveBeenCalledTimes(2);
    b.close();
  });

  it('saves the budget of the runs a delegated run counts into: once for a turn, once for the calls it starts together, once for a sampling answer', async () => {
    const save = vi.fn();
    const { budget: caller } = budget({ limits: { maxTotalTokens: 1000 }, save });
    const { budget: delegated } = budget({ limits: {}, parent: caller, runId: 'd' });
    delegated.spendTurn(usage(30));
    await Promise.resolve();
    expect(save).toHaveBeenCalledTimes(1);
    expect(delegated.startCall()).toBeUndefined();
    expect(delegated.startCall()).toBeUndefined();
    await Promise.resolve();
    expect(save).toHaveBeenCalledTimes(2);
    // sampling answered during one of the caller's own calls
    caller.spendNow(usage(20));
    await Promise.resolve();
    expect(save).toHaveBeenCalledTimes(3);
    // the caller's own calls are stored by its own step commits
    expect(caller.startCall()).toBeUndefined();
    await Promise.resolve();
    expect(save).toHaveBeenCalledTimes(3);
    expect(caller.record().spent).toMatchObject({ tokens: 50, toolCalls: 3 });
    // once closed, nothing is counted or saved
    caller.close();
    delegated.spendTurn(usage(30));
    await Promise.resolve();
    expect(save).toHaveBeenCalledTimes(3);
    expect(caller.record().spent.tokens).toBe(50);
  });
});
