import { guardStore } from './store-operation.js';
import type { Fence } from './store-operation.js';
import type {
  DecideOptions,
  SessionWaits,
  SessionWriteOptions,
  Wait,
  WaitDecision,
  WaitPage,
  WaitQuery,
} from '../session/index.js';

/** A store's waits whose failures are typed by {@link guardStore}. */
export class GuardedWaits implements SessionWaits {
  constructor(
    private readonly waits: SessionWaits,
    private readonly fence: Fence,
  ) {}

  /**
   *
   */
  put(wait: Wait, options?: SessionWriteOptions): Promise<void> {
    return guardStore(wait.sessionId, 'store the wait', () =>
      this.fence(() => this.waits.put(wait, options)),
    );
  }

  /**
   *
   */
  get(sessionId: string, waitId: string): Promise<Wait | undefined> {
    return guardStore(sessionId, 'read the wait', () =>
      this.fence(() => this.waits.get(sessionId, waitId)),
    );
  }

  /**
   *
   */
  list(query?: WaitQuery): Promise<WaitPage> {
    return guardStore(query?.sessionId ?? '', 'list the waits', () =>
      this.fence(() => this.waits.list(query)),
    );
  }

  /**
   *
   */
  decide(
    sessionId: string,
    waitId: string,
    decision: WaitDecision,
    options?: DecideOptions,
  ): Promise<Wait> {
    return guardStore(sessionId, 'decide the wait', () =>
      this.fence(() => this.waits.decide(sessionId, waitId, decision, options)),
    );
  }

  /**
   *
   */
  remove(
    sessionId: string,
    waitIds: readonly string[],
    options?: SessionWriteOptions,
  ): Promise<void> {
    return guardStore(sessionId, 'remove the waits', () =>
      this.fence(() => this.waits.remove(sessionId, waitIds, options)),
    );
  }
}
