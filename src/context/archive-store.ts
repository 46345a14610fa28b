import { randomBytes } from 'node:crypto';

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
  readonly #sessions = new Map<string, Map<string, ArchivedItem>>();
  readonly #refs = new Set<string>();

  async put(item: ArchiveItemInput): Promise<ArchivedItem> {
    let ref = newArchiveRef();
    while (this.#refs.has(ref)) ref = newArchiveRef();
    const stored: ArchivedItem = Object.freeze({
      ...item,
      ref,
      createdAt: new Date().toISOString(),
    });
    let session = this.#sessions.get(item.sessionId);
    if (!session) {
      session = new Map();
      this.#sessions.set(item.sessionId, session);
    }
    session.set(ref, stored);
    this.#refs.add(ref);
    return stored;
  }

  async get(sessionId: string, ref: string): Promise<ArchivedItem | undefined> {
    return this.#sessions.get(sessionId)?.get(ref);
  }

  async list(sessionId: string): Promise<readonly ArchivedItem[]> {
    return [...(this.#sessions.get(sessionId)?.values() ?? [])];
  }

  async deleteSession(sessionId: string): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    for (const ref of session.keys()) this.#refs.delete(ref);
    this.#sessions.delete(sessionId);
  }
}
