import { McpError, abortedError } from '../../errors/index.js';
import type { McpTransportFailureReason, MusterError } from '../../errors/index.js';

/**
 * The bound of one connect (Muster's protocol probe, the spawn or dial, the handshake): the
 * caller's signal and the server's `connectTimeoutMs`, as one deadline.
 * The official client does not watch a signal during its protocol probe, so the connect is
 * raced against this bound rather than left to the client: an abort or the deadline ends the
 * connect at once.
 */
export class ConnectBound {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #deadline: number;
  #failure: MusterError | undefined;
  #unlink: () => void = () => undefined;
  /** What the timeout's message adds while it is set (see {@link ConnectBound.hintOnTimeout}). */
  #hint: string | undefined;

  constructor(
    private readonly server: string,
    private readonly timeoutMs: number,
    caller?: AbortSignal,
  ) {
    this.#deadline = performance.now() + timeoutMs;
    this.#timer = setTimeout(() => this.#stop(this.#timedOut()), timeoutMs);
    this.#timer.unref();
    if (caller) {
      const onAbort = () => this.#stop(abortedError(`Connecting to '${server}'`, caller.reason));
      if (caller.aborted) onAbort();
      else {
        caller.addEventListener('abort', onAbort, { once: true });
        this.#unlink = () => caller.removeEventListener('abort', onAbort);
      }
    }
  }

  /** Aborts on the caller's abort or at the deadline. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** What is left of `connectTimeoutMs` (at least 1 ms). */
  remainingMs(): number {
    return Math.max(1, Math.ceil(this.#deadline - performance.now()));
  }

  /** The error the connect ends with once the bound fired: `ABORTED`, or the timeout. */
  get failure(): MusterError | undefined {
    return this.#failure;
  }

  /** `work`, or the bound's error as soon as it fires (`work` goes on; its result is dropped). */
  race<T>(work: Promise<T>): Promise<T> {
    work.catch(() => undefined);
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<T>((resolve, reject) => {
      const onStop = () => reject(this.#failure);
      this.#controller.signal.addEventListener('abort', onStop, { once: true });
      work.then(
        (value) => {
          this.#controller.signal.removeEventListener('abort', onStop);
          resolve(value);
        },
        (err: unknown) => {
          this.#controller.signal.removeEventListener('abort', onStop);
          reject(err);
        },
      );
    });
  }

  /**
   * Adds `hint` to the timeout's message should the bound run out while the step it is about
   * runs; `undefined` takes it back.
   */
  hintOnTimeout(hint: string | undefined): void {
    this.#hint = hint;
  }

  /** Stops the timer and forgets the caller's signal. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#unlink();
  }

  #stop(error: MusterError): void {
    if (this.#failure) return;
    this.#failure = error;
    this.dispose();
    this.#controller.abort(error);
  }

  #timedOut(): McpError {
    const { server, timeoutMs } = this;
    const hint = this.#hint === undefined ? '' : ` ${this.#hint}`;
    const message = `Server '${server}' did not finish connecting within connectTimeoutMs (${timeoutMs} ms), so it was stopped: raise connectTimeoutMs in its declaration, or check the server.${hint}`;
    return new McpError('MCP_CONNECTION_FAILED', message, {
      server,
      details: {
        server,
        reason: 'timed-out' satisfies McpTransportFailureReason,
        limit: 'connectTimeoutMs',
        limitMs: timeoutMs,
      },
    });
  }
}
