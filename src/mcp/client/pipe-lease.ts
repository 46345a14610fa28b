import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { prefersLegacyEra } from './era-choice.js';

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

/** The id prefix of the official client's `server/discover` probes (string ids). */
const PROBE_ID = 'server-discover-probe-';

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
   * another one's only detaches its client (see {@link PipeLease.adopt}). With `holdAfterChoice`,
   * the lease refuses what its client sends after a `server/discover` answer that leaves the
   * era to Muster (see {@link prefersLegacyEra}), `initialize` excepted: that client is about
   * to be replaced by a legacy one, and the server must hear nothing modern before.
   */
  lease(options: { owning: boolean; holdAfterChoice?: boolean }): PipeLease {
    return new PipeLease(this, options.owning, options.holdAfterChoice === true);
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
  /**
   * With `holdAfterChoice`: `watching` for the answer to the probe outstanding, `offered` once
   * one left the era to Muster, then `passed` (the client sent `initialize`: it went legacy
   * itself, after that answer or without waiting for one, as on a probe timeout) or `held` (it
   * sent anything else after that answer: refused). Without it, always `passed`.
   */
  #choice: 'watching' | 'offered' | 'passed' | 'held';
  /** The id of the `server/discover` probe this lease sent and saw no answer to yet. */
  #probe: string | undefined;

  constructor(
    private readonly pipe: SharedPipe,
    private owning: boolean,
    holdAfterChoice: boolean,
  ) {
    this.#choice = holdAfterChoice ? 'watching' : 'passed';
  }

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

  /** From now on `close()` only detaches: the pipe goes to another client. */
  retire(): void {
    this.owning = false;
  }

  /** Starts the pipe (once for all its leases) and attaches this lease to it. */
  async start(): Promise<void> {
    if (this.#detached) throw new HandedOverError();
    await this.pipe.start();
    this.pipe.attach(this);
  }

  /**
   * Sends on the pipe, unless this lease was detached or holds its client back. `initialize`
   * always goes out, and ends the watch: the client chose the legacy era itself.
   */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.#detached) return Promise.reject(new HandedOverError());
    const method = 'method' in message ? message.method : undefined;
    if (this.#choice === 'watching' || this.#choice === 'offered') {
      if (method === 'initialize') {
        this.#choice = 'passed';
        this.#probe = undefined;
      } else if (this.#choice === 'offered') this.#choice = 'held';
      else if (method === 'server/discover' && 'id' in message && isProbeId(message.id))
        this.#probe = message.id;
    }
    if (this.#choice === 'held') return Promise.reject(new HandedOverError());
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

  /**
   * A message of the transport, for this lease's client. While watching, only the answer to
   * the probe outstanding counts: a result that leaves the era to Muster offers it, anything
   * else (an error, a result with extensions) leaves the client to go on as it decides.
   */
  deliver(message: JSONRPCMessage, extra: Parameters<NonNullable<Transport['onmessage']>>[1]) {
    if (this.#choice === 'watching' && this.#probe !== undefined) {
      const m = message as { id?: unknown; result?: unknown; error?: unknown };
      if (m.id === this.#probe && (m.result !== undefined || m.error !== undefined)) {
        this.#probe = undefined;
        if (m.result !== undefined && prefersLegacyEra(m.result)) this.#choice = 'offered';
      }
    }
    this.onmessage?.(message, extra);
  }
}

/** True for the id of one of the official client's `server/discover` probes. */
function isProbeId(id: unknown): id is string {
  return typeof id === 'string' && id.startsWith(PROBE_ID);
}
