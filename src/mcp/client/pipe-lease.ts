import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

type SendOptions = Parameters<Transport['send']>[1];

/** A stdio transport as a lease sees it: the client's transport, and the size-bound hook. */
type StdioLike = Transport & {
  readonly pid?: number | null;
  readonly stderr?: unknown;
  onOversizedAnswer?: (id: number | string, error: Error) => void;
};

/** The error of a send refused by a lease: its client was handed over (never reaches a host). */
export class HandedOverError extends Error {
  constructor() {
    super('The connection was handed to another client on the same process.');
    this.name = 'HandedOverError';
  }
}

/**
 * One stdio transport (one process, one pipe) lent to the official clients of a first contact
 * in turn, each through its own {@link PipeLease}: a client connected over a lease can be
 * detached without the process being stopped, and the next client connected over a new lease
 * of the same pipe (the process is started once). One lease is attached at a time: it gets
 * the transport's messages, its close and errors.
 */
export class SharedPipe {
  #started: Promise<void> | undefined;
  #holder: PipeLease | undefined;

  constructor(readonly transport: StdioLike) {}

  /**
   * A lease of the pipe. An `owning` lease's `close()` closes the transport (the process);
   * another one's only detaches its client (see {@link PipeLease.adopt}).
   */
  lease(options: { owning: boolean }): PipeLease {
    return new PipeLease(this, options.owning);
  }

  /** Starts the transport, once whatever the number of leases. */
  start(): Promise<void> {
    this.#started ??= this.transport.start();
    return this.#started;
  }

  /** Routes the transport's events to `lease`. */
  attach(lease: PipeLease): void {
    this.#holder = lease;
    const t = this.transport;
    t.onmessage = (message, extra) => lease.deliver(message, extra);
    t.onclose = () => lease.onclose?.();
    t.onerror = (error) => lease.onerror?.(error);
    const oversized = (lease as StdioLike).onOversizedAnswer;
    t.onOversizedAnswer = oversized ? (id, error) => oversized(id, error) : undefined;
  }

  /** Stops routing the transport's events to `lease`, if it is the one attached. */
  detach(lease: PipeLease): void {
    if (this.#holder !== lease) return;
    this.#holder = undefined;
    const t = this.transport;
    t.onmessage = undefined;
    t.onclose = undefined;
    t.onerror = undefined;
    t.onOversizedAnswer = undefined;
  }
}

/**
 * A client's transport over a {@link SharedPipe}. It looks like a stdio transport to the
 * official client (`pid`, `stderr`), so a probe over it is judged as a probe on a pipe.
 */
export class PipeLease implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  #detached = false;
  #closeReported = false;

  constructor(
    private readonly pipe: SharedPipe,
    private owning: boolean,
  ) {}

  /** The process's pid, once started. */
  get pid(): number | null {
    return this.pipe.transport.pid ?? null;
  }

  /** The process's stderr, once started. */
  get stderr(): unknown {
    return this.pipe.transport.stderr ?? null;
  }

  /** From now on `close()` closes the transport: the client over this lease keeps the pipe. */
  adopt(): void {
    this.owning = true;
  }

  /** Starts the pipe (once for all its leases) and attaches this lease to it. */
  async start(): Promise<void> {
    if (this.#detached) throw new HandedOverError();
    await this.pipe.start();
    this.pipe.attach(this);
  }

  /** Sends on the pipe, unless this lease was detached. */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.#detached) return Promise.reject(new HandedOverError());
    return this.pipe.transport.send(message, options);
  }

  /** Closes the transport when owning; else only detaches, and reports the close to its client. */
  async close(): Promise<void> {
    if (this.owning && !this.#detached) {
      await this.pipe.transport.close();
      return;
    }
    this.#detached = true;
    this.pipe.detach(this);
    if (this.#closeReported) return;
    this.#closeReported = true;
    this.onclose?.();
  }

  /** A message of the transport, for this lease's client. */
  deliver(message: JSONRPCMessage, extra: Parameters<NonNullable<Transport['onmessage']>>[1]) {
    this.onmessage?.(message, extra);
  }
}
