import type {
  PendingApproval,
  PendingElicitation,
  ServersResponse,
  StudioEvent,
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
  /** `resource.updated` events seen, per `<server>\n<uri>`. */
  readonly resourceUpdates: Readonly<Record<string, number>>;
}

type StateListener = (state: StudioState) => void;

/** Statuses that change by themselves soon. */
const SETTLING = new Set(['connecting', 'reconnecting']);
const SETTLING_POLL_MS = 1500;
type EventListener = (event: StudioEvent) => void;

/** Every kind the server sends: a record, so a kind added to the contract must be listed. */
const EVENT_KIND_SET: Record<StudioEvent['kind'], true> = {
  hello: true,
  agent: true,
  servers: true,
  'approval.pending': true,
  'approval.resolved': true,
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
    case 'resource.updated': {
      const key = resourceKey(event.server, event.uri);
      const count = (state.resourceUpdates[key] ?? 0) + 1;
      return { ...state, resourceUpdates: { ...state.resourceUpdates, [key]: count } };
    }
    default:
      return state;
  }
}

/** The page's one EventSource and the state it feeds; pages subscribe to either. */
export class StudioStore {
  private state: StudioState = {
    connected: false,
    servers: undefined,
    approvals: [],
    elicitations: [],
    resourceUpdates: {},
  };
  private readonly stateListeners = new Set<StateListener>();
  private readonly eventListeners = new Set<EventListener>();
  private source: EventSource | undefined;
  /** How many `servers` events arrived (orders them against `GET /api/servers`). */
  private serverEvents = 0;

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
    // a safety net while a server is on its way: the list again every so often
    setInterval(() => {
      if (this.state.servers?.some((s) => SETTLING.has(s.status))) void this.refreshServers();
    }, SETTLING_POLL_MS);
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
