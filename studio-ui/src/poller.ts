/** Timers as a {@link Poller} uses them (the page's own by default). */
export interface PollTimers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** What {@link createPoller} takes. */
export interface PollerOptions {
  /** One read of what the page shows; its failure is the page's to show (it never rejects). */
  readonly load: () => Promise<unknown>;
  /** Milliseconds from the end of one read to the next poll. */
  readonly intervalMs: number;
  /** Whether the page is hidden now (`document.hidden`): no poll then. */
  readonly hidden: () => boolean;
  readonly timers?: PollTimers;
}

/** A page's polling: one read at a time, the next one counted from the end of the last. */
export interface Poller {
  /** Reads now and polls from then on. */
  start(): void;
  /** Stops polling (a read in flight ends unheeded). */
  stop(): void;
  /**
   * Reads now; while a read is in flight, one more read follows it (however many refreshes
   * were asked meanwhile), never two reads at once.
   */
  refresh(): void;
  /** The page was shown or hidden: shown again after a poll was skipped, it reads at once. */
  visibilityChanged(): void;
}

const windowTimers: PollTimers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Polls `load` every `intervalMs` without ever starting a read while one is in flight (a slow
 * server does not pile requests up), and not while the page is hidden (it reads again once
 * shown).
 */
export function createPoller(options: PollerOptions): Poller {
  const timers = options.timers ?? windowTimers;
  let stopped = true;
  let loading = false;
  let again = false;
  let timer: unknown;
  const clearTimer = () => {
    if (timer !== undefined) timers.clear(timer);
    timer = undefined;
  };
  const tick = () => {
    timer = undefined;
    // hidden: skipped; `visibilityChanged` reads once the page is shown
    if (!options.hidden()) refresh();
  };
  const refresh = () => {
    if (stopped) return;
    if (loading) {
      again = true;
      return;
    }
    clearTimer();
    loading = true;
    void options
      .load()
      .catch(() => undefined)
      .finally(() => {
        loading = false;
        if (stopped) return;
        if (again) {
          again = false;
          refresh();
        } else timer = timers.set(tick, options.intervalMs);
      });
  };
  return {
    start() {
      stopped = false;
      refresh();
    },
    stop() {
      stopped = true;
      again = false;
      clearTimer();
    },
    refresh,
    visibilityChanged() {
      if (!options.hidden() && timer === undefined && !loading) refresh();
    },
  };
}
