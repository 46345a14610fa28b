import type {
  ParkedWait,
  PendingApproval,
  PendingElicitation,
  ServersResponse,
  StudioEvent,
  WaitsResponse,
} from '../../src/studio/api-types.js';
import { api } from './api.js';

/** What every page reads live: fed by the one `/api/events` stream. */
export interface StudioState {
  /** Whether the event stream is open. */
  readonly connected: boolean;
  /** The servers as last reported (`GET /api/servers`, then `servers` events). */
  readonly servers: ServersResponse | undefined;
  readonly approvals: readonly PendingApproval[];
  readonly elicitations: readonly PendingElicitation[];
  /**
   * The waits of parked runs in the store, whichever process parked them (`GET /api/waits`,
   * read again on the events that change them and every few seconds).
   */
  readonly waits: readonly ParkedWait[];
  /** `resource.updated` events seen, per `<server>\n<uri>`. */
  readonly resourceUpdates: Readonly<Record<string, number>>;
}

type StateListener = (state: StudioState) => void;

/** Statuses that change by themselves soon. */
const SETTLING = new Set(['connecting', 'reconnecting']);
const SETTLING_POLL_MS = 1500;
/** Waits parked by other processes announce nothing here: the list is read this often. */
const WAITS_POLL_MS = 5000;
/** At most this many pages of `GET /api/waits` are read (100 waits each). */
const MAX_WAIT_PAGES = 10;
/** Agent events after which the store's waits may have changed. */
const WAIT_EVENTS = new Set(['wait.created', 'wait.decided', 'session.parked']);
type EventListener = (event: StudioEvent) => void;

/** Every kind the server sends: a record, so a kind added to the contract must be listed. */
const EVENT_KIND_SET: Record<StudioEvent['kind'], true> = {
  hello: true,
  agent: true,
  servers: true,
  'approval.pending': true,
  'approval.resolved': true,
  'wait.decided': true,
  'elicitation.pending': true,
  'elicitation.resolved': true,
  'resource.updated': true,
  'resource.subscription.ended': true,
  'run.ended': true,
};
const EVENT_KINDS = Object.keys(EVENT_KIND_SET) as StudioEvent['kind'][];

/** The key of `resourceUpdates`. */
export function resourceKey(server: string, uri: string): string {
  return `${server}\n${uri}`;
}

/** Folds one event into the state (pure; the store calls it for every event). */
export function reduceStudioState(state: StudioState, event: StudioEvent): StudioState {
  switch (event.kind) {
    case 'hello':
      return { ...state, approvals: event.approvals, elicitations: event.elicitations };
    case 'servers':
      return { ...state, servers: event.servers };
    case 'approval.pending':
      return {
        ...state,
        approvals: [...state.approvals.filter((a) => a.id !== event.approval.id), event.approval],
      };
    case 'approval.resolved':
      return { ...state, approvals: state.approvals.filter((a) => a.id !== event.id) };
    case 'elicitation.pending':
      return {
        ...state,
        elicitations: [
          ...state.elicitations.filter((e) => e.id !== event.elicitation.id),
          event.elicitation,
        ],
      };
    case 'elicitation.resolved':
      return { ...state, elicitations: state.elicitations.filter((e) => e.id !== event.id) };
    case 'wait.decided':
      return { ...state, waits: withWait(state.waits, event.wait) };
    case 'resource.updated': {
      const key = resourceKey(event.server, event.uri);
      const count = (state.resourceUpdates[key] ?? 0) + 1;
      return { ...state, resourceUpdates: { ...state.resourceUpdates, [key]: count } };
    }
    default:
      return state;
  }
}

/** `waits` with `wait` in place of the stored one of the same session and id (pure). */
export function withWait(waits: readonly ParkedWait[], wait: ParkedWait): readonly ParkedWait[] {
  return waits.map((w) => (w.sessionId === wait.sessionId && w.id === wait.id ? wait : w));
}

/** Whether a listed wait still asks a person (pending, not expired). */
export function isOpenWait(wait: ParkedWait): boolean {
  return wait.status === 'pending' && !wait.expired;
}

/** The page's one EventSource and the state it feeds; pages subscribe to either. */
export class StudioStore {
  private state: StudioState = {
    connected: false,
    servers: undefined,
    approvals: [],
    elicitations: [],
    waits: [],
    resourceUpdates: {},
  };
  private readonly stateListeners = new Set<StateListener>();
  private readonly eventListeners = new Set<EventListener>();
  private source: EventSource | undefined;
  /** How many `servers` events arrived (orders them against `GET /api/servers`). */
  private serverEvents = 0;
  /** Reads of `GET /api/waits` started; only the newest answer is kept. */
  private waitReads = 0;
  private waitsReading: Promise<void> | undefined;
  private waitsAgain = false;

  /** Opens the stream (once) and loads the server list. */
  start(): void {
    if (this.source) return;
    const source = new EventSource('/api/events');
    this.source = source;
    source.onopen = () => this.set({ ...this.state, connected: true });
    source.onerror = () => this.set({ ...this.state, connected: false });
    const onMessage = (message: MessageEvent<string>) => this.receive(message.data);
    for (const kind of EVENT_KINDS) source.addEventListener(kind, onMessage);
    source.addEventListener('message', onMessage);
    void this.refreshServers();
    void this.refreshWaits();
    // a safety net while a server is on its way: the list again every so often
    setInterval(() => {
      if (this.state.servers?.some((s) => SETTLING.has(s.status))) void this.refreshServers();
    }, SETTLING_POLL_MS);
    setInterval(() => void this.refreshWaits(), WAITS_POLL_MS);
  }

  /**
   * Reads the parked runs' waits again (`GET /api/waits`, every page up to 1000 waits). A
   * read asked for while one is going on runs once it is done, so the newest state wins.
   */
  refreshWaits(): Promise<void> {
    if (this.waitsReading) {
      this.waitsAgain = true;
      return this.waitsReading;
    }
    const read = async (): Promise<void> => {
      do {
        this.waitsAgain = false;
        const seq = ++this.waitReads;
        try {
          const waits: ParkedWait[] = [];
          let cursor: string | undefined;
          for (let page = 0; page < MAX_WAIT_PAGES; page++) {
            const query = cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`;
            const answer = await api.get<WaitsResponse>(`/api/waits${query}`);
            waits.push(...answer.waits);
            cursor = answer.nextCursor;
            if (cursor === undefined) break;
          }
          if (seq === this.waitReads) this.set({ ...this.state, waits });
        } catch {
          // the pages show their own errors; the next read fills the list
        }
      } while (this.waitsAgain);
    };
    this.waitsReading = read().finally(() => (this.waitsReading = undefined));
    return this.waitsReading;
  }

  /** Shows a wait as the studio answered it (a decision just taken), before the next read. */
  putWait(wait: ParkedWait): void {
    this.set({ ...this.state, waits: withWait(this.state.waits, wait) });
  }

  /**
   * Reloads `GET /api/servers` (at start, on every `hello`, after a register, unregister or
   * reconnect). A `servers` event that arrives meanwhile is newer: the answer is then dropped.
   */
  async refreshServers(): Promise<void> {
    const seen = this.serverEvents;
    try {
      const servers = await api.get<ServersResponse>('/api/servers');
      if (seen === this.serverEvents) this.set({ ...this.state, servers });
    } catch {
      // the pages show their own errors; the next `servers` event fills the list
    }
  }

  /** Drops an answered approval or elicitation at once (its `*.resolved` event follows). */
  forget(kind: 'approval' | 'elicitation', id: string): void {
    if (kind === 'approval') {
      this.set({ ...this.state, approvals: this.state.approvals.filter((a) => a.id !== id) });
    } else {
      this.set({ ...this.state, elicitations: this.state.elicitations.filter((e) => e.id !== id) });
    }
  }

  getState(): StudioState {
    return this.state;
  }

  subscribe(listener: StateListener): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  onEvent(listener: EventListener): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  private receive(data: string): void {
    let event: StudioEvent;
    try {
      event = JSON.parse(data) as StudioEvent;
    } catch {
      return;
    }
    if (typeof event !== 'object' || event === null || typeof event.kind !== 'string') return;
    if (event.kind === 'servers') this.serverEvents += 1;
    this.set(reduceStudioState(this.state, event));
    // the stream (re)opened: what happened while it was closed is in the list, not in events
    if (event.kind === 'hello') void this.refreshServers();
    // a run parked, took up its waits or ended: the store's waits changed
    if (
      event.kind === 'hello' ||
      event.kind === 'run.ended' ||
      event.kind === 'wait.decided' ||
      (event.kind === 'agent' && WAIT_EVENTS.has(event.event.type))
    )
      void this.refreshWaits();
    for (const listener of this.eventListeners) listener(event);
  }

  private set(state: StudioState): void {
    if (state === this.state) return;
    this.state = state;
    for (const listener of this.stateListeners) listener(state);
  }
}

/** The page's store. */
export const studioStore = new StudioStore();
