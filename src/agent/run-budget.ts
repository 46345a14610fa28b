import { MusterError } from '../errors/index.js';
import { fromPicoUsd, toPicoUsd } from '../model/index.js';
import type { Usage } from '../model/index.js';
import type { BudgetLimitName, SessionBudget } from '../session/index.js';
import type { ToolExecutionContext } from '../tools/index.js';
import { runScopeOf } from '../tools/index.js';
import type { RunScope } from '../tools/index.js';
import { isoNow } from '../util/index.js';
import type { BudgetExhaustedEvent, BudgetWarningEvent } from './events.js';
import { budgetLimits, hasBudget } from './limits.js';
import type { BudgetLimits } from './limits.js';

/** A budget event, as a budget reports it into its run. */
export type BudgetEvent = BudgetWarningEvent | BudgetExhaustedEvent;

/** The limit that ran out, and whose budget it was. */
export interface BudgetExhaustion {
  readonly limit: BudgetLimitName;
  readonly max: number;
  readonly spent: number;
  /** The run whose budget ran out (this run's, or the run that delegated to it). */
  readonly runId: string;
}

/** What a run's budget is opened with. */
export interface RunBudgetInit {
  readonly sessionId: string;
  readonly runId: string;
  /** The run's own budget limits (its policy included). */
  readonly limits: BudgetLimits;
  /** The budget of the run that delegated to this one (`asTool`): it counts everything here too. */
  readonly parent?: RunBudget | undefined;
  /** What the run spent before it parked or its process died (a resume goes on from it). */
  readonly stored?: SessionBudget | undefined;
  /** When the run started (`performance.now()`): its active time counts from there. */
  readonly startedAt: number;
  /** Reports a budget event into the run. */
  readonly emit: (event: BudgetEvent) => void;
  /**
   * Called once, when this budget runs out (but for `maxToolCalls`, whose calls in flight were
   * started within the limit): the run cancels its calls in flight.
   */
  readonly onExhausted: (error: MusterError) => void;
  /**
   * Usage a delegated run (or its sampling) spent, counted here as it went: the run adds it to
   * its session's usage (the delegating tool then reports none).
   */
  readonly onDelegated?: (usage: Usage) => void;
  /**
   * Stores the budget now, between the run's step commits (a commit of its session that
   * carries the budget, coalesced by the run). Called, for a budget of the run's own, when
   * spending is counted outside the run's own turns and calls (a delegated run's turn and the
   * calls it starts, a sampling answer, a tool's report) and, under `maxDurationMs`, when a
   * tenth of the limit (at least a second) of active time passed since the budget was last
   * recorded: a process that dies then loses at most that.
   */
  readonly save?: () => void;
}

/** The longest delay `setTimeout` takes (2^31 - 1 ms, about 24.8 days); longer is re-armed. */
const MAX_TIMER_MS = 2_147_483_647;

/** The least active time between two saves of the clock (see `RunBudgetInit.save`). */
const MIN_SAVE_EVERY_MS = 1000;

/** The budgets of the runs in flight, by the scope their tool calls see (for `asTool`). */
const budgets = new WeakMap<RunScope, RunBudget>();

/**
 * What one run may spend and has spent (SPEC 15.4): tokens and dollars of its model turns, of
 * the runs it delegates to (`asTool`, whose budgets count into this one as they go) and of the
 * sampling its servers ask of the agent's model; the tool calls it and they start; the time it
 * is active (parked time excluded: each process counts its own stretch, on from the stored
 * total). At 80 % of a limit it reports `budget.warning` once; when one runs out it reports
 * `budget.exhausted` once and cancels the run's calls in flight, and the loop stops (or takes
 * its last turn). Dollars are counted as whole picodollars, so totals add up exactly.
 */
export class RunBudget {
  /** The run's own limits. */
  readonly limits: BudgetLimits;
  readonly #init: RunBudgetInit;
  readonly #parent: RunBudget | undefined;
  readonly #maxPico: number | undefined;
  #tokens: number;
  #pico: number;
  #calls: number;
  /** Active milliseconds before this process's stretch. */
  readonly #priorMs: number;
  readonly #warned: Set<BudgetLimitName>;
  #exhausted: BudgetExhaustion | undefined;
  /** Events of this run's own turns, reported once the turn's event is out (`flush`). */
  #pending: BudgetEvent[] = [];
  /** The one timer of `maxDurationMs`, while it runs. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Active milliseconds when the budget was last recorded (or opened). */
  #recordedMs: number;
  /** A save is asked for at the end of this turn of the event loop. */
  #saveQueued = false;
  #closed = false;

  constructor(init: RunBudgetInit) {
    this.#init = init;
    this.limits = init.limits;
    this.#parent = init.parent;
    const maxCost = init.limits.maxCostUsd;
    this.#maxPico = maxCost === undefined ? undefined : toPicoUsd(maxCost);
    const spent = init.stored?.spent;
    this.#tokens = spent?.tokens ?? 0;
    this.#pico = toPicoUsd(spent?.costUsd ?? 0);
    this.#calls = spent?.toolCalls ?? 0;
    this.#priorMs = spent?.durationMs ?? 0;
    this.#recordedMs = this.#priorMs;
    this.#warned = new Set(init.stored?.warned ?? []);
    this.#resume(init.stored?.exhausted);
    this.#startClock();
  }

  /** True when the run has budget limits of its own (then its budget is stored with it). */
  get own(): boolean {
    return hasBudget(this.limits);
  }

  /** True when this budget, or one it counts into, limits dollars (every turn must be priced). */
  get countsCost(): boolean {
    return this.limits.maxCostUsd !== undefined || (this.#parent?.countsCost ?? false);
  }

  /** What the run does once its budget is spent. */
  get policy(): 'fail' | 'finish' {
    return this.limits.onBudgetExhausted ?? 'fail';
  }

  /** The limit that stops this run: its own budget's, or a delegating run's. */
  get exhaustion(): BudgetExhaustion | undefined {
    return this.#exhausted ?? this.#parent?.exhaustion;
  }

  /** Milliseconds the run has been active, parked time excluded. */
  get activeMs(): number {
    return this.#priorMs + (performance.now() - this.#init.startedAt);
  }

  /**
   * Counts a model turn of this run (its usage priced when a price is known), here and in every
   * delegating run's budget; this run's events wait for `flush()` (after the turn's event).
   */
  spendTurn(usage: Usage | undefined): void {
    if (!usage || this.#closed) return;
    this.#count(usage);
    for (let p = this.#parent; p; p = p.#parent) p.#delegated(usage);
  }

  /**
   * Counts usage spent outside the run's turns (sampling, a tool's report), reports at once
   * and stores the budget (no step commit of the run follows at once).
   */
  spendNow(usage: Usage): void {
    if (this.#closed) return;
    this.spendTurn(usage);
    this.flush();
    this.#save();
  }

  /** Reports the warnings and the exhaustion the spending so far caused. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const events = this.#pending;
    this.#pending = [];
    for (const event of events) this.#init.emit(event);
  }

  /**
   * Before a tool call starts: counts it here and in every delegating run's budget, or, when
   * a budget is spent (or has no call left), refuses it with the text of its error result.
   */
  startCall(): string | undefined {
    return this.#startCall(false);
  }

  /**
   * {@link startCall} for a call whose start rides the commit of the turn that asked for it:
   * counted before that commit (which then stores the count), this run's own events waiting
   * for the `flush()` after the turn's event, as the turn's own do.
   */
  reserveCall(): string | undefined {
    return this.#startCall(true);
  }

  #startCall(holdOwnEvents: boolean): string | undefined {
    if (this.#closed) return undefined;
    const chain: RunBudget[] = [this];
    for (let b = this.#parent; b; b = b.#parent) chain.push(b);
    // a reserved call's own events wait for the flush after its turn's event
    for (const b of chain) {
      const max = b.limits.maxToolCalls;
      if (max !== undefined && b.#exhausted === undefined && b.#calls >= max) {
        b.#exhaust('maxToolCalls', max, b.#calls);
        if (b !== this || !holdOwnEvents) b.flush();
      }
    }
    const stop = this.exhaustion;
    if (stop) return budgetRefusal(stop);
    for (const b of chain) {
      b.#calls++;
      b.#check('maxToolCalls');
      if (b !== this || !holdOwnEvents) b.flush();
      // a delegated run's call reaches no step commit of the runs that delegated
      if (b !== this) b.#save();
    }
    return undefined;
  }

  /** The budget as the session stores it at each step commit. */
  record(): SessionBudget {
    const exhausted = this.#exhausted?.runId === this.#init.runId ? this.#exhausted : undefined;
    const activeMs = this.activeMs;
    this.#recordedMs = activeMs;
    return {
      limits: budgetLimits(this.limits),
      spent: {
        tokens: this.#tokens,
        costUsd: fromPicoUsd(this.#pico),
        toolCalls: this.#calls,
        durationMs: Math.round(activeMs),
      },
      warned: [...this.#warned],
      ...(exhausted ? { exhausted: exhausted.limit } : {}),
    };
  }

  /** Makes this budget the one of the calls of `scope` (a delegated run started by one links to it). */
  serve(scope: RunScope): void {
    budgets.set(scope, this);
  }

  /** Stops the run's clock and timers; later spending (a late delegated turn) is not counted. */
  close(): void {
    this.#closed = true;
    this.#stopClock();
  }

  /**
   * Counts usage of a run this one delegated to, as it went, and stores the budget: the
   * delegated run's turn reaches no step commit of this run until its call ends, and a process
   * that dies before would lose it.
   */
  #delegated(usage: Usage): void {
    if (this.#closed) return;
    this.#init.onDelegated?.(usage);
    this.#count(usage);
    this.flush();
    this.#save();
  }

  /**
   * Stores a budget of the run's own (see `RunBudgetInit.save`) once what is counted now is
   * counted: the calls a turn starts together are stored in one save.
   */
  #save(): void {
    if (this.#closed || this.#saveQueued || !this.own || !this.#init.save) return;
    this.#saveQueued = true;
    queueMicrotask(() => {
      this.#saveQueued = false;
      if (!this.#closed) this.#init.save?.();
    });
  }

  #count(usage: Usage): void {
    this.#tokens += usage.totalTokens;
    if (usage.costUsd !== undefined) this.#pico += toPicoUsd(usage.costUsd);
    this.#check('maxTotalTokens');
    this.#check('maxCostUsd');
  }

  /** Warns at 80 % of `limit`, and runs out at 100 % (tool calls: when one more is asked for). */
  #check(limit: BudgetLimitName): void {
    const at = this.#standing(limit);
    if (!at) return;
    const { spent, max, units } = at;
    if (!this.#warned.has(limit) && spent * 5 >= max * 4) {
      this.#warned.add(limit);
      this.#pending.push(this.#event('budget.warning', limit, units));
    }
    if (limit !== 'maxToolCalls' && spent >= max) this.#exhaust(limit, units.max, units.spent);
  }

  /** Where `limit` stands, in the units it is compared in and in the units it is reported in. */
  #standing(
    limit: BudgetLimitName,
  ): { spent: number; max: number; units: { spent: number; max: number } } | undefined {
    const l = this.limits;
    switch (limit) {
      case 'maxTotalTokens':
        return l.maxTotalTokens === undefined
          ? undefined
          : {
              spent: this.#tokens,
              max: l.maxTotalTokens,
              units: { spent: this.#tokens, max: l.maxTotalTokens },
            };
      case 'maxCostUsd':
        return this.#maxPico === undefined
          ? undefined
          : {
              spent: this.#pico,
              max: this.#maxPico,
              units: { spent: fromPicoUsd(this.#pico), max: l.maxCostUsd! },
            };
      case 'maxToolCalls':
        return l.maxToolCalls === undefined
          ? undefined
          : {
              spent: this.#calls,
              max: l.maxToolCalls,
              units: { spent: this.#calls, max: l.maxToolCalls },
            };
      case 'maxDurationMs': {
        if (l.maxDurationMs === undefined) return undefined;
        const ms = this.activeMs;
        return {
          spent: ms,
          max: l.maxDurationMs,
          units: { spent: Math.round(ms), max: l.maxDurationMs },
        };
      }
    }
  }

  #exhaust(limit: BudgetLimitName, max: number, spent: number): void {
    if (this.#exhausted) return;
    this.#exhausted = { limit, max, spent, runId: this.#init.runId };
    this.#pending.push({
      ...this.#event('budget.exhausted', limit, { spent, max }),
      onBudgetExhausted: this.policy,
    } as BudgetExhaustedEvent);
    this.#stopClock();
    // the calls in flight were started within a limit of calls: they may end
    if (limit !== 'maxToolCalls')
      this.#init.onExhausted(budgetExhaustedError(this.#exhausted, this.#init.runId));
  }

  /**
   * A resumed run whose stored spending is at a limit is spent again at once (reported only
   * when the stored budget had not reported it): a raised limit lets it go on.
   */
  #resume(stored: BudgetLimitName | undefined): void {
    for (const limit of [
      'maxTotalTokens',
      'maxCostUsd',
      'maxDurationMs',
      'maxToolCalls',
    ] as const) {
      const at = this.#standing(limit);
      if (!at) continue;
      const out =
        limit === 'maxToolCalls' ? stored === limit && at.spent >= at.max : at.spent >= at.max;
      if (!out) continue;
      this.#warned.add(limit);
      this.#exhaust(limit, at.units.max, at.units.spent);
      if (stored === limit) this.#pending = [];
      return;
    }
    for (const limit of ['maxTotalTokens', 'maxCostUsd', 'maxToolCalls'] as const)
      this.#check(limit);
  }

  /** Starts the clock of `maxDurationMs` (see {@link RunBudget.#tick}). */
  #startClock(): void {
    if (this.limits.maxDurationMs !== undefined) this.#tick();
  }

  /**
   * The clock of `maxDurationMs`: reports what the active time reached (its warning at 80 %,
   * its end), stores the budget when a tenth of the limit passed unrecorded, and sets the one
   * timer for whichever comes next, at most `MAX_TIMER_MS` ahead (a longer wait takes more
   * than one timer, one after the other).
   */
  readonly #tick = (): void => {
    this.#timer = undefined;
    const max = this.limits.maxDurationMs;
    if (max === undefined || this.#closed || this.#exhausted) return;
    const now = this.activeMs;
    if (now >= max || (!this.#warned.has('maxDurationMs') && now * 5 >= max * 4)) {
      this.#check('maxDurationMs');
      this.flush();
      if (this.#exhausted) return;
    }
    const every = Math.max(max / 10, MIN_SAVE_EVERY_MS);
    if (now - this.#recordedMs >= every) {
      this.#save();
      // the save records the budget once it is written; until then the stretch counts as saved
      this.#recordedMs = now;
    }
    const warnAt = this.#warned.has('maxDurationMs') ? max : max * 0.8;
    const next = Math.min(warnAt, this.#recordedMs + every);
    const delay = Math.min(Math.max(Math.ceil(next - now), 1), MAX_TIMER_MS);
    this.#timer = setTimeout(this.#tick, delay);
  };

  #stopClock(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #event<T extends BudgetEvent['type']>(
    type: T,
    limit: BudgetLimitName,
    units: { spent: number; max: number },
  ): BudgetEvent {
    return {
      type,
      timestamp: isoNow(),
      sessionId: this.#init.sessionId,
      runId: this.#init.runId,
      limit,
      max: units.max,
      spent: units.spent,
    } as BudgetEvent;
  }
}

/** The budget of the run a tool call belongs to, while that run lasts (a delegated run links to it). */
export function budgetOfCall(ctx: ToolExecutionContext | undefined): RunBudget | undefined {
  const scope = ctx && runScopeOf(ctx);
  return scope && budgets.get(scope);
}

const UNITS: Record<BudgetLimitName, string> = {
  maxTotalTokens: 'tokens',
  maxCostUsd: 'USD',
  maxDurationMs: 'ms',
  maxToolCalls: 'tool calls',
};

/** `BUDGET_EXHAUSTED` for `stop`, as seen from run `runId`. */
export function budgetExhaustedError(stop: BudgetExhaustion, runId: string): MusterError {
  const whose =
    stop.runId === runId ? 'The run' : `The run that delegated to this one (${stop.runId})`;
  return new MusterError(
    'BUDGET_EXHAUSTED',
    `${whose} spent its budget: limits.${stop.limit} is ${stop.max} ${UNITS[stop.limit]}, ${stop.spent} spent (its delegated runs and sampling included). Raise the limit, narrow the task, or set limits.onBudgetExhausted: 'finish' to get an answer from what was done.`,
    { details: { limit: stop.limit, max: stop.max, spent: stop.spent, runId: stop.runId } },
  );
}

/** The error result of a call a spent budget does not run. */
export function budgetRefusal(stop: BudgetExhaustion): string {
  return `Error [BUDGET_EXHAUSTED]: the run's budget is spent (limits.${stop.limit} ${stop.max} ${UNITS[stop.limit]}); this call was not run.`;
}
