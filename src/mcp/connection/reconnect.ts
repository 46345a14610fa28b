import { backoffDelay } from '../../util/index.js';
import type { BackoffSettings } from '../../util/index.js';
import type { McpReconnectOptions } from '../contracts/config-types.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import type { ServerEntry } from './server-entry.js';

/** `mcp.reconnect` with its defaults applied. */
export interface ReconnectSettings extends BackoffSettings {
  readonly enabled: boolean;
  readonly maxAttempts: number;
  /** Undefined: no health checks. */
  readonly healthCheckIntervalMs?: number;
  readonly healthCheckTimeoutMs: number;
}

/** Resolves `mcp.reconnect` (already validated by the schema) against `MCP_DEFAULTS`. */
export function reconnectSettings(options: McpReconnectOptions | undefined): ReconnectSettings {
  const d = MCP_DEFAULTS.reconnect;
  return {
    enabled: options?.enabled ?? d.enabled,
    maxAttempts: options?.maxAttempts ?? d.maxAttempts,
    initialDelayMs: options?.initialDelayMs ?? d.initialDelayMs,
    maxDelayMs: options?.maxDelayMs ?? d.maxDelayMs,
    jitterRatio: options?.jitterRatio ?? d.jitterRatio,
    ...(options?.healthCheckIntervalMs !== undefined
      ? { healthCheckIntervalMs: options.healthCheckIntervalMs }
      : {}),
    healthCheckTimeoutMs: options?.healthCheckTimeoutMs ?? d.healthCheckTimeoutMs,
  };
}

/** What the reconnect loop asks of its owner. */
export interface ReconnectHooks {
  /**
   * One attempt: a new transport, negotiated, initialized, listed and published. Resolves
   * `connected`, or `stop` when there is nothing more to do (the server was removed, or it
   * needs a sign-in); rejects with a failure worth another attempt.
   */
  attempt(e: ServerEntry, signal: AbortSignal): Promise<'connected' | 'stop'>;
  /** An attempt failed; `final` after the last one allowed. */
  failed(e: ServerEntry, error: unknown, attempt: number, final: boolean): void;
}

/** One server's background reconnect: its cancellation, its wait and who waits on it. */
class Loop {
  readonly controller = new AbortController();
  readonly signal: AbortSignal;
  done: Promise<boolean> = Promise.resolve(false);
  #wake: (() => void) | undefined;
  #waiting: (() => void)[] = [];

  constructor(lifetime: AbortSignal) {
    this.signal = AbortSignal.any([lifetime, this.controller.signal]);
  }

  /**
   * Waits `ms` (a timer that keeps no process alive: an idle reconnect never does; a caller
   * awaiting the reconnect keeps the process alive by its own wait, see `settled`); true
   * unless cancelled.
   */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', cancelled);
        this.#wake = undefined;
        resolve(ok);
      };
      const cancelled = () => done(false);
      const timer = setTimeout(() => done(true), ms);
      timer.unref();
      this.#wake = () => done(true);
      this.signal.addEventListener('abort', cancelled, { once: true });
      if (this.signal.aborted) done(false);
    });
  }

  /** Resolves after the next attempt (or the end of the loop); cuts a wait short. */
  next(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const release = () => {
        signal.removeEventListener('abort', release);
        resolve();
      };
      this.#waiting.push(release);
      signal.addEventListener('abort', release, { once: true });
      this.#wake?.();
    });
  }

  /** Releases everyone waiting for an attempt. */
  attempted(): void {
    for (const release of this.#waiting.splice(0)) release();
  }
}

/**
 * Reconnects lost servers in the background (SPEC 7.4): up to `maxAttempts` attempts, each
 * after an exponential backoff with jitter (`backoffDelay`), none after `stop()`, `close()`
 * or the owner's lifetime. Loops belong to no run. A loop is keyed by the registry entry, so
 * a server updated or registered again under the same name never inherits one.
 */
export class Reconnector {
  readonly #loops = new Map<ServerEntry, Loop>();

  constructor(
    private readonly settings: ReconnectSettings,
    private readonly lifetime: AbortSignal,
    private readonly hooks: ReconnectHooks,
    private readonly random: () => number = Math.random,
  ) {}

  /** True while a background reconnect of `e` runs. */
  active(e: ServerEntry): boolean {
    return this.#loops.has(e);
  }

  /** Starts reconnecting `e` in the background; nothing when one already runs. */
  start(e: ServerEntry): void {
    if (this.#loops.has(e) || this.lifetime.aborted) return;
    const loop = new Loop(this.lifetime);
    this.#loops.set(e, loop);
    loop.done = this.#run(e, loop).finally(() => {
      if (this.#loops.get(e) === loop) this.#loops.delete(e);
      loop.attempted();
    });
  }

  /**
   * Makes the next attempt now instead of after its wait (a run or an operation needs the
   * server); resolves once that attempt ended, or when `signal` fires.
   */
  nudge(e: ServerEntry, signal: AbortSignal): Promise<void> {
    return this.#loops.get(e)?.next(signal) ?? Promise.resolve();
  }

  /**
   * Resolves true once `e` is reconnected; false when the loop ended otherwise, `signal` fired
   * or `timeoutMs` passed. Unlike an idle reconnect (its backoff timers are unref'd), this
   * wait keeps the process alive by its own timer, and with it the loop's attempts: a script
   * awaiting a call must not exit in the middle of it.
   */
  settled(e: ServerEntry, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
    const loop = this.#loops.get(e);
    if (!loop || signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const end = (ok: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', cancelled);
        resolve(ok);
      };
      const cancelled = () => end(false);
      const timer = setTimeout(cancelled, timeoutMs);
      signal.addEventListener('abort', cancelled, { once: true });
      void loop.done.then(end);
    });
  }

  /** Cancels the reconnect of `e` (its wait, or its attempt in flight); true if one ran. */
  stop(e: ServerEntry): boolean {
    const loop = this.#loops.get(e);
    if (!loop) return false;
    this.#loops.delete(e);
    loop.controller.abort();
    return true;
  }

  /** Cancels every reconnect. */
  close(): void {
    for (const e of [...this.#loops.keys()]) this.stop(e);
  }

  async #run(e: ServerEntry, loop: Loop): Promise<boolean> {
    const { maxAttempts } = this.settings;
    for (let n = 1; n <= maxAttempts; n++) {
      if (!(await loop.sleep(backoffDelay(this.settings, n, this.random)))) return false;
      try {
        return (await this.hooks.attempt(e, loop.signal)) === 'connected';
      } catch (err) {
        if (loop.signal.aborted) return false;
        this.hooks.failed(e, err, n, n === maxAttempts);
      } finally {
        loop.attempted();
      }
    }
    return false;
  }
}
