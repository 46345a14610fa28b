import { randomBytes } from 'node:crypto';
import { MusterError } from '../errors/index.js';
import { assertValid, checkedElsewhere, shape } from '../util/index.js';
import type { Check } from '../util/index.js';

/** What an archived item holds: text (a large JSON projection or text) or binary data. */
export type ArchivedItemKind = 'text' | 'binary';

/**
 * One tool output kept in a session's archive. The model reads it in pages through the
 * built-in `context` tool, by `ref`, only within the session that produced it.
 */
export interface ArchivedItem {
  /** The reference the model uses, `ref_<random base36>`. Unique within the store. */
  readonly ref: string;
  /** The session the item belongs to; no other session can read it. */
  readonly sessionId: string;
  readonly kind: ArchivedItemKind;
  /** `application/json` or `text/plain` for text; the media type of binary data. */
  readonly mimeType: string;
  /** Byte length of the payload: UTF-8 bytes of `text`, or decoded bytes of `data`. */
  readonly bytes: number;
  /** The payload of a text item. */
  readonly text?: string;
  /** The payload of a binary item, base64. */
  readonly data?: string;
  /** The model-facing name of the tool that produced the item. */
  readonly toolName: string;
  /** The call that produced the item. */
  readonly callId: string;
  /** When the item was archived, ISO 8601. */
  readonly createdAt: string;
}

/** What {@link ArchiveStore.put} takes: an item without the fields the store assigns. */
export type ArchiveItemInput = Omit<ArchivedItem, 'ref' | 'createdAt'>;

/**
 * Where archived tool outputs live. Every read names the session, so a reference from another
 * session is unknown. Implementations must assign refs that are unique and hard to guess.
 */
export interface ArchiveStore {
  /** Stores an item and returns it with its new `ref` and `createdAt`. */
  put(item: ArchiveItemInput): Promise<ArchivedItem>;
  /** The item with `ref` in `sessionId`, or `undefined` (also for a ref of another session). */
  get(sessionId: string, ref: string): Promise<ArchivedItem | undefined>;
  /** The items of one session, oldest first. */
  list?(sessionId: string): Promise<readonly ArchivedItem[]>;
  /** Removes every item of one session. Idempotent. */
  deleteSession?(sessionId: string): Promise<void>;
  /**
   * True when `ref` was an item of `sessionId` that the store dropped to stay within its
   * bound, so a reader can say so instead of calling the ref unknown.
   */
  wasEvicted?(sessionId: string, ref: string): Promise<boolean>;
}

/** The default bound of {@link MemoryArchiveStore}: archived bytes kept per session. */
export const DEFAULT_ARCHIVE_BYTES_PER_SESSION = 64 * 1024 * 1024;

/** Options of {@link MemoryArchiveStore}. */
export interface MemoryArchiveStoreOptions {
  /**
   * Archived bytes kept per session (default 64 MiB). When a new item would go over, the
   * session's oldest items are dropped first; an item larger than the bound is refused.
   */
  readonly maxBytesPerSession?: number;
}

/** The keys of the options; their values are checked in the constructor. Others are refused. */
const OPTION_KEYS = shape({
  maxBytesPerSession: checkedElsewhere,
} satisfies Record<keyof MemoryArchiveStoreOptions, Check>);

interface SessionArchive {
  readonly items: Map<string, ArchivedItem>;
  readonly evicted: Set<string>;
  bytes: number;
}

/** A new archive reference: `ref_` and 128 random bits in base36. */
export function newArchiveRef(): string {
  return `ref_${BigInt(`0x${randomBytes(16).toString('hex')}`).toString(36)}`;
}

/**
 * An {@link ArchiveStore} in process memory, the default. Items are frozen and live until
 * their session is deleted or the process ends.
 *
 * @example
 * ```ts
 * const store = new MemoryArchiveStore();
 * const item = await store.put({ sessionId: 's1', kind: 'text', mimeType: 'text/plain',
 *   bytes: 2, text: 'hi', toolName: 'search', callId: 'c1' });
 * await store.get('s1', item.ref); // the item
 * await store.get('s2', item.ref); // undefined
 * ```
 */
export class MemoryArchiveStore implements ArchiveStore {
  readonly #sessions = new Map<string, SessionArchive>();
  readonly #refs = new Set<string>();
  readonly #maxBytes: number;

  constructor(options: MemoryArchiveStoreOptions = {}) {
    assertValid(options, OPTION_KEYS, 'MemoryArchiveStore options');
    const max = options.maxBytesPerSession ?? DEFAULT_ARCHIVE_BYTES_PER_SESSION;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `maxBytesPerSession must be a positive whole number of bytes, not ${String(max)}.`,
      );
    }
    this.#maxBytes = max;
  }

  async put(item: ArchiveItemInput): Promise<ArchivedItem> {
    if (item.bytes > this.#maxBytes) {
      throw new MusterError(
        'TOOL_RESULT_TOO_LARGE',
        `The item is ${item.bytes} bytes, over the archive's bound of ${this.#maxBytes} bytes per session: raise maxBytesPerSession or ask the tool for less data.`,
        { details: { bytes: item.bytes, maxBytesPerSession: this.#maxBytes } },
      );
    }
    let ref = newArchiveRef();
    while (this.#refs.has(ref)) ref = newArchiveRef();
    const stored: ArchivedItem = Object.freeze({
      ...item,
      ref,
      createdAt: new Date().toISOString(),
    });
    let session = this.#sessions.get(item.sessionId);
    if (!session) {
      session = { items: new Map(), evicted: new Set(), bytes: 0 };
      this.#sessions.set(item.sessionId, session);
    }
    // oldest first: a Map iterates in insertion order
    for (const [oldRef, old] of session.items) {
      if (session.bytes + item.bytes <= this.#maxBytes) break;
      session.items.delete(oldRef);
      session.evicted.add(oldRef);
      session.bytes -= old.bytes;
    }
    session.items.set(ref, stored);
    session.bytes += item.bytes;
    this.#refs.add(ref);
    return stored;
  }

  async get(sessionId: string, ref: string): Promise<ArchivedItem | undefined> {
    return this.#sessions.get(sessionId)?.items.get(ref);
  }

  async list(sessionId: string): Promise<readonly ArchivedItem[]> {
    return [...(this.#sessions.get(sessionId)?.items.values() ?? [])];
  }

  async deleteSession(sessionId: string): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    for (const ref of session.items.keys()) this.#refs.delete(ref);
    for (const ref of session.evicted) this.#refs.delete(ref);
    this.#sessions.delete(sessionId);
  }

  async wasEvicted(sessionId: string, ref: string): Promise<boolean> {
    return this.#sessions.get(sessionId)?.evicted.has(ref) ?? false;
  }
}
