import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { abortedError } from '../../errors/index.js';
import { raceAbort } from '../../util/index.js';
import type { McpConnection } from '../client/mcp-connection.js';
import { notSentError } from '../failures/connection-errors.js';
import type { DiscoveredTool } from './mcp-discovery.js';
import type { ServerEntry } from './server-entry.js';
import type { SecretRegistry } from '../../util/index.js';

/** What opening one principal's connection gives the pool. */
export interface PrincipalOpened {
  readonly connection: McpConnection;
  readonly tools: DiscoveredTool[];
  /** The principal's own secrets (its tokens), for the redaction of its calls' errors. */
  readonly secrets: SecretRegistry;
  /** Lets go of what the connection held besides itself (the principal's OAuth session). */
  readonly release: () => void;
}

/** What the pool wants to hear about an open connection. */
export interface PrincipalConnectionHooks {
  /** The connection closed without the pool closing it. */
  readonly onLost: () => void;
  /** The server said its tool list changed. */
  readonly onToolsChanged: () => void;
}

/** Opens one principal's connection (bounded by `signal`, the pool's lifetime). */
export type PrincipalOpener = (
  hooks: PrincipalConnectionHooks,
  signal: AbortSignal,
) => Promise<PrincipalOpened>;

/** A principal's connection lent to one operation; give it back with {@link release}. */
export interface PrincipalLease {
  readonly connection: McpConnection;
  /** See {@link PrincipalOpened.secrets}. */
  readonly secrets: SecretRegistry;
  /** The tools the connection listed. */
  readonly tools: readonly DiscoveredTool[];
  /** True when the server said its tools changed since {@link tools} were listed. */
  readonly stale: boolean;
  /** Replaces the listing after a relist. */
  setTools(tools: DiscoveredTool[]): void;
  /** Closes the connection now (its token refused, its session gone): the next use opens anew. */
  discard(): void;
  /** Gives the connection back; idempotent. */
  release(): void;
}

/** How a {@link SlotLease} hands its slot back to the pool. */
interface SlotReturns {
  drop(slot: Slot): void;
  giveBack(slot: Slot): void;
}

/**
 * One use of a slot's connection. A class, so `tools` and `stale` are getters of its prototype:
 * an object literal's getter gets each object a hidden class of its own, which V8 keeps in old
 * space, holding the getter and what it closes over until a full GC (docs/performance.md,
 * "What kept every run alive").
 */
class SlotLease implements PrincipalLease {
  readonly connection: McpConnection;
  readonly secrets: SecretRegistry;
  #released = false;

  constructor(
    private readonly slot: Slot,
    private readonly returns: SlotReturns,
  ) {
    const opened = slot.opened!;
    this.connection = opened.connection;
    this.secrets = opened.secrets;
  }

  get tools(): readonly DiscoveredTool[] {
    return this.slot.tools;
  }

  get stale(): boolean {
    return this.slot.stale;
  }

  setTools(tools: DiscoveredTool[]): void {
    this.slot.tools = tools;
    this.slot.stale = false;
  }

  discard(): void {
    this.returns.drop(this.slot);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.returns.giveBack(this.slot);
  }
}

/** One principal's connection to one server while the pool holds it. */
interface Slot {
  readonly key: string;
  readonly entry: ServerEntry;
  readonly principal: string;
  /** Settles when the connection is open (rejects when opening failed). */
  opening: Promise<void> | undefined;
  opened?: PrincipalOpened;
  tools: DiscoveredTool[];
  stale: boolean;
  /** Operations holding or waiting for this connection: never evicted while above 0. */
  users: number;
  /** When the last user gave it back (`performance.now()`). */
  lastUsed: number;
  /** Dropped from the pool: closed, or closing. */
  gone: boolean;
  /** Settles once a dropped slot's connection is closed. */
  closed?: Promise<void>;
}

/** The bounds of a {@link PrincipalPool}. */
export interface PrincipalPoolOptions {
  /** Connections open (or opening, or closing) at once, across servers and principals. */
  readonly max: number;
  /** An unused connection is closed after this many ms. */
  readonly idleMs: number;
  /** True while `e` is the registered entry of its server (not removed, not replaced). */
  readonly isLive: (e: ServerEntry) => boolean;
}

/**
 * The connections of principals to the servers that authenticate per principal (SPEC 15.4),
 * one per (server, principal), shared by that principal's runs and never by anyone else's.
 *
 * - **Bounded**: at most `max` connections exist at once, counting those opening and those
 *   still closing (so the server never sees more). A new one when all are taken closes the
 *   least recently used idle one first; with none idle it waits for one to be given back or
 *   closed, bounded by the caller's signal.
 * - **Idle ones close** `idleMs` after their last use, by one unref'd timer for the whole
 *   pool, armed for the earliest deadline (it keeps no process alive).
 * - A connection in use is never evicted; closing it on purpose (`closePrincipal`, `discard`,
 *   `close`) fails its calls in flight, as closing a shared connection does.
 */
export class PrincipalPool {
  /** Slots by key; the order is the order of last release (least recently used first). */
  readonly #slots = new Map<string, Slot>();
  /** Closes in flight: they still count against {@link PrincipalPoolOptions.max}. */
  #closing = 0;
  readonly #waiters = new Set<() => void>();
  readonly #lifetime = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerDue = Infinity;
  #closed = false;

  constructor(private readonly options: PrincipalPoolOptions) {
    // every open in flight listens to the pool's lifetime: up to `max` at once, by design
    setMaxListeners(0, this.#lifetime.signal);
  }

  /** Connections held now (open or opening) plus those closing. */
  get size(): number {
    return this.#slots.size + this.#closing;
  }

  /** True when `principal` has a connection to the server of `e` (open or opening). */
  has(e: ServerEntry, principal: string): boolean {
    return this.#slots.get(keyOf(e.name, principal))?.entry === e;
  }

  /**
   * Lends the connection of `principal` to the server of `e`, opened by `open` when there is
   * none (the caller authorizes before). Joins an open in progress; waits for room when the
   * pool is full of connections in use.
   *
   * @throws the open's error; `ABORTED` when `signal` aborts while waiting; a not-sent
   *   `McpError` once the pool is closed or when `e` is no longer its server's entry
   *   (unregistered or updated: nothing opens for it).
   */
  async acquire(
    e: ServerEntry,
    principal: string,
    signal: AbortSignal,
    open: PrincipalOpener,
  ): Promise<PrincipalLease> {
    const key = keyOf(e.name, principal);
    const what = `a connection of '${e.name}'`;
    for (;;) {
      if (this.#closed || !this.options.isLive(e)) throw notSentError(e.name);
      if (signal.aborted) throw abortedError(what, signal.reason);
      const slot = this.#slots.get(key);
      if (slot && slot.entry !== e) {
        // `e` is live, so the slot's entry is not: the server was registered again, and only
        // its old connection goes (a caller holding a replaced entry was refused above)
        void this.#drop(slot);
        continue;
      }
      if (slot) {
        slot.users += 1;
        try {
          if (slot.opening) await raceAbort(slot.opening, signal, what);
        } catch (err) {
          this.#giveBack(slot);
          throw err;
        }
        if (slot.gone || !slot.opened || slot.opened.connection.closed) {
          this.#giveBack(slot);
          if (!slot.gone) this.#drop(slot);
          continue;
        }
        return this.#lease(slot);
      }
      if (this.size >= this.options.max) {
        // the least recently used idle connection makes room: this caller waits for its close
        // (then competes for the room like every waiter), and evicts no second one meanwhile
        const idle = this.#leastRecentlyUsedIdle();
        if (idle) await raceAbort(this.#drop(idle, true), signal, what);
        else await this.#room(signal, what);
        continue;
      }
      this.#open(e, principal, key, open);
    }
  }

  /** Closes the connection of `principal` to `server`, if any (its logout). */
  async closePrincipal(server: string, principal: string): Promise<void> {
    const slot = this.#slots.get(keyOf(server, principal));
    if (slot) await this.#drop(slot);
  }

  /** Closes every principal's connection to `server` (unregistered, or updated). */
  async closeServer(server: string): Promise<void> {
    const closing = [...this.#slots.values()]
      .filter((s) => s.entry.name === server)
      .map((s) => this.#drop(s));
    await Promise.all(closing);
  }

  /** Closes every connection (`disconnectAll`); they open again on their next use. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#slots.values()].map((s) => this.#drop(s)));
  }

  /** Closes every connection and refuses new ones; waiting callers fail. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#lifetime.abort();
    this.#disarm();
    const closing = this.closeAll();
    this.#wake();
    await closing;
  }

  #open(e: ServerEntry, principal: string, key: string, open: PrincipalOpener): void {
    const slot: Slot = {
      key,
      entry: e,
      principal,
      opening: undefined,
      tools: [],
      stale: false,
      users: 0,
      lastUsed: performance.now(),
      gone: false,
    };
    const hooks: PrincipalConnectionHooks = {
      onLost: () => void this.#drop(slot),
      onToolsChanged: () => {
        slot.stale = true;
      },
    };
    slot.opening = open(hooks, this.#lifetime.signal).then(
      (opened) => {
        slot.opening = undefined;
        slot.opened = opened;
        slot.tools = opened.tools;
        // dropped while opening (a logout, the pool closed): #drop closes it now
        if (!slot.gone && slot.users === 0) this.#giveBack(slot, false);
      },
      (err: unknown) => {
        slot.opening = undefined;
        if (!slot.gone) void this.#drop(slot);
        throw err;
      },
    );
    // the callers that wait on it see the failure; nobody waiting is no unhandled rejection
    slot.opening.catch(() => undefined);
    this.#slots.set(key, slot);
  }

  #lease(slot: Slot): PrincipalLease {
    return new SlotLease(slot, this.#returns);
  }

  /** What a lease calls to give its slot back or drop it (one pair for the pool, not per lease). */
  readonly #returns: SlotReturns = {
    drop: (slot) => {
      if (!slot.gone) void this.#drop(slot);
    },
    giveBack: (slot) => this.#giveBack(slot),
  };

  /** One user less; an idle connection moves to the recent end and its deadline is armed. */
  #giveBack(slot: Slot, counted = true): void {
    if (counted) slot.users -= 1;
    if (slot.users > 0 || slot.gone) return;
    slot.lastUsed = performance.now();
    // re-inserted: the map's order stays the order of last use
    this.#slots.delete(slot.key);
    this.#slots.set(slot.key, slot);
    this.#arm(slot.lastUsed + this.options.idleMs);
    this.#wake();
  }

  #leastRecentlyUsedIdle(): Slot | undefined {
    for (const slot of this.#slots.values())
      if (slot.users === 0 && slot.opening === undefined) return slot;
    return undefined;
  }

  /**
   * Takes a slot out of the pool and closes its connection (one still opening is closed once
   * it opens); it counts against the bound until it is closed.
   */
  #drop(slot: Slot, idle = false): Promise<void> {
    if (slot.gone) return slot.closed ?? Promise.resolve();
    slot.gone = true;
    if (this.#slots.get(slot.key) === slot) this.#slots.delete(slot.key);
    this.#closing += 1;
    slot.closed = (async () => {
      try {
        if (slot.opening) await slot.opening.catch(() => undefined);
        const opened = slot.opened;
        if (opened) {
          // an idle connection (evicted, or past principalIdleMs) ends its HTTP session, so
          // the server frees it now; one closed for a logout or a loss sends nothing more
          await opened.connection.close(idle ? { endSessionMs: END_SESSION_MS } : undefined);
          opened.release();
        }
      } finally {
        this.#closing -= 1;
        this.#wake();
      }
    })();
    return slot.closed;
  }

  /** Waits until a connection is given back or closed (or `signal` aborts). */
  #room(signal: AbortSignal, what: string): Promise<void> {
    let wake!: () => void;
    const freed = new Promise<void>((resolve) => (wake = resolve));
    this.#waiters.add(wake);
    return raceAbort(freed, signal, what).finally(() => this.#waiters.delete(wake));
  }

  #wake(): void {
    if (this.#waiters.size === 0) return;
    const waiting = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiting) wake();
  }

  /** Arms the one timer for `due` unless it already fires earlier. */
  #arm(due: number): void {
    if (this.#closed || (this.#timer !== undefined && this.#timerDue <= due)) return;
    this.#disarm();
    this.#timerDue = due;
    this.#timer = setTimeout(() => this.#sweep(), Math.max(0, due - performance.now()));
    this.#timer.unref();
  }

  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDue = Infinity;
  }

  /** Closes the connections idle past `idleMs`, then arms the timer for the next one. */
  #sweep(): void {
    this.#timer = undefined;
    this.#timerDue = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const slot of [...this.#slots.values()]) {
      if (slot.users > 0 || slot.opening) continue;
      const due = slot.lastUsed + this.options.idleMs;
      if (due <= now) void this.#drop(slot, true);
      else next = Math.min(next, due);
    }
    if (next !== Infinity) this.#arm(next);
  }
}

/** The longest the session `DELETE` of an idle connection may take before it is closed anyway. */
const END_SESSION_MS = 5_000;

/** The key of one principal's connection to one server (`\u0000` is in neither). */
function keyOf(server: string, principal: string): string {
  return `${server}\u0000${principal}`;
}
