import type { Agent } from '../agent/index.js';
import { MusterError, SessionError } from '../errors/index.js';
import { newId } from '../util/index.js';
import type { StartRunBody } from './api-types.js';
import type { StudioEventSink } from './studio-context.js';

interface LiveRun {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * The runs the studio started, at most one per session. A run goes on in the background:
 * its events reach the page through the agent's event observer (the studio's runtime
 * publishes every event); this only starts it, drains it, cancels it, and publishes
 * `run.ended` with `completed`, `failed` (and the error's code and message) or `cancelled`
 * when it is over.
 */
export class StudioRuns {
  readonly #live = new Map<string, LiveRun>();
  #closed = false;

  constructor(
    private readonly agent: Agent,
    private readonly events: StudioEventSink,
    private readonly hasModel: boolean,
  ) {}

  /**
   * Starts a run; fails with `SESSION_ALREADY_RUNNING` while the session has one here, with
   * `INVALID_CONFIGURATION` when the studio has no model, and with `ABORTED` (503) once
   * {@link close} has begun.
   */
  start(body: StartRunBody): string {
    if (this.#closed) {
      throw new MusterError(
        'ABORTED',
        'The studio is shutting down, so no run can start: start muster studio again.',
      );
    }
    if (!this.hasModel) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'The studio has no model, so runs cannot start: restart muster studio with --model provider:name (or set MUSTER_MODEL).',
      );
    }
    const sessionId = body.sessionId ?? newId('session');
    if (this.#live.has(sessionId)) {
      throw new SessionError(
        'SESSION_ALREADY_RUNNING',
        `Session '${sessionId}' is running in the studio: wait for it to end or cancel it first.`,
        { sessionId },
      );
    }
    const controller = new AbortController();
    const done = this.#drain(sessionId, body, controller);
    this.#live.set(sessionId, { controller, done });
    return sessionId;
  }

  /** Aborts the session's live run; false when it has none. */
  cancel(sessionId: string): boolean {
    const live = this.#live.get(sessionId);
    if (live === undefined) return false;
    live.controller.abort(new MusterError('ABORTED', 'The run was cancelled from the studio.'));
    return true;
  }

  /** Whether the session has a live run here. */
  isRunning(sessionId: string): boolean {
    return this.#live.has(sessionId);
  }

  /** The sessions with a live run here now (the event stream's `hello` lists them). */
  live(): readonly string[] {
    return [...this.#live.keys()];
  }

  /** Refuses new runs, cancels every live run and waits for them to end. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#live.values()];
    for (const live of all)
      live.controller.abort(new MusterError('ABORTED', 'The studio is shutting down.'));
    await Promise.all(all.map((l) => l.done));
  }

  async #drain(sessionId: string, body: StartRunBody, controller: AbortController): Promise<void> {
    let status = 'completed';
    let error: { code: string; message: string } | undefined;
    try {
      const events = this.agent.run({
        input: body.prompt,
        sessionId,
        signal: controller.signal,
        ...(body.modelName === undefined ? {} : { modelName: body.modelName }),
      });
      // the events themselves are published by the agent's observer (studio-runtime.ts)
      for await (const _event of events) void _event;
    } catch (err) {
      status = controller.signal.aborted ? 'cancelled' : 'failed';
      if (status === 'failed') error = errorData(err);
    } finally {
      this.#live.delete(sessionId);
      this.events.publish({
        kind: 'run.ended',
        sessionId,
        status,
        ...(error === undefined ? {} : { error }),
      });
    }
  }
}

/** A run's failure as the page may see it: its code and message, never details or cause. */
function errorData(err: unknown): { code: string; message: string } {
  if (MusterError.isInstance(err)) return { code: err.code, message: err.message };
  return { code: 'INTERNAL_ERROR', message: 'The run failed unexpectedly (see the terminal).' };
}
