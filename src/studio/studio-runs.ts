import type { Agent, AgentEvent } from '../agent/index.js';
import { MusterError, SessionError } from '../errors/index.js';
import { newId } from '../util/index.js';
import type { StartRunBody } from './api-types.js';
import type { StudioEventSink } from './studio-context.js';

interface LiveRun {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * The runs the studio started or resumed, at most one per session. A run goes on in the
 * background: its events reach the page through the agent's event observer (the studio's
 * runtime publishes every event); this only starts it, drains it, cancels it, and publishes
 * `run.ended` with `completed`, `failed` (and the error's code and message), `cancelled` or
 * `parked` when it is over.
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
    const sessionId = body.sessionId ?? newId('session');
    this.#checkCanStart(sessionId);
    this.#launch(sessionId, (signal) =>
      this.agent.run({
        input: body.prompt,
        sessionId,
        signal,
        ...(body.modelName === undefined ? {} : { modelName: body.modelName }),
      }),
    );
    return sessionId;
  }

  /**
   * Continues a parked session here (`agent.resume`), once its waits are decided: its events
   * reach the page like a started run's, and `run.ended` says `parked` when it waits again
   * (a wait still undecided, or a decision voided by a changed call, tool or policy). Fails
   * as {@link start} does, with `SESSION_NOT_FOUND` for an unknown session, and with
   * `INVALID_CONFIGURATION` for a session that is not parked.
   */
  async resume(sessionId: string): Promise<void> {
    this.#checkCanStart(sessionId);
    const state = await this.agent.sessions.get(sessionId);
    if (state === undefined)
      throw new SessionError('SESSION_NOT_FOUND', `No session '${sessionId}' in the store.`, {
        sessionId,
      });
    if (state.status === 'running')
      throw new SessionError(
        'SESSION_ALREADY_RUNNING',
        `Session '${sessionId}' is running (in this studio or another process): wait for it to park or end.`,
        { sessionId },
      );
    if (state.status !== 'parked')
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Session '${sessionId}' is ${state.status}, not parked: there is no waiting run to resume.`,
      );
    // a second resume may have started while the session was read
    this.#checkCanStart(sessionId);
    this.#launch(sessionId, (signal) => this.agent.resume(sessionId, { signal }));
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

  #checkCanStart(sessionId: string): void {
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
    if (this.#live.has(sessionId)) {
      throw new SessionError(
        'SESSION_ALREADY_RUNNING',
        `Session '${sessionId}' is running in the studio: wait for it to end or cancel it first.`,
        { sessionId },
      );
    }
  }

  #launch(sessionId: string, events: (signal: AbortSignal) => AsyncIterable<AgentEvent>): void {
    const controller = new AbortController();
    const done = this.#drain(sessionId, events, controller);
    this.#live.set(sessionId, { controller, done });
  }

  async #drain(
    sessionId: string,
    run: (signal: AbortSignal) => AsyncIterable<AgentEvent>,
    controller: AbortController,
  ): Promise<void> {
    let status = 'completed';
    let error: { code: string; message: string } | undefined;
    try {
      // the events themselves are published by the agent's observer (studio-runtime.ts);
      // a run that ends on `session.parked` waits on a decision (SPEC 15.1)
      for await (const event of run(controller.signal))
        status = event.type === 'session.parked' ? 'parked' : 'completed';
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
