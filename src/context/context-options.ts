import type { ArchiveStore } from './archive-store.js';

/**
 * The agent's `context` options (SPEC section 9). The archive of large tool results lives in
 * `archiveStore` (a bounded {@link MemoryArchiveStore} by default), so a durable store can keep
 * it beside the sessions.
 */
export interface ContextOptions {
  /** Where archived tool results live; default a new `MemoryArchiveStore`. */
  readonly archiveStore?: ArchiveStore;
  /**
   * Bytes of archived results kept per session by the default store (default 64 MiB); the
   * oldest are dropped first. Ignored when `archiveStore` is given (bound that store instead).
   */
  readonly maxArchiveBytesPerSession?: number;
}
