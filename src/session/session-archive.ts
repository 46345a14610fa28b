// The archive shape a durable session store offers. It is the shape of the context folder's
// `ArchiveStore` (SPEC 7.5), declared here because sessions sit below the context folder.

/** One archived tool output, as a session store keeps it. */
export interface SessionArchiveItem {
  readonly ref: string;
  readonly sessionId: string;
  readonly kind: 'text' | 'binary';
  readonly mimeType: string;
  readonly bytes: number;
  readonly text?: string;
  /** Binary payload, base64. */
  readonly data?: string;
  readonly toolName: string;
  readonly callId: string;
  readonly createdAt: string;
}

/** An archive kept in a session store; assignable to the context folder's `ArchiveStore`. */
export interface SessionArchive {
  /** Stores an item, giving it a new `ref` and its creation time; returns the stored item. */
  put(item: Omit<SessionArchiveItem, 'ref' | 'createdAt'>): Promise<SessionArchiveItem>;
  /** The item `ref` of the session, or `undefined` when there is none (or it was evicted). */
  get(sessionId: string, ref: string): Promise<SessionArchiveItem | undefined>;
  /** The session's items, oldest first. */
  list(sessionId: string): Promise<readonly SessionArchiveItem[]>;
  /** Removes every item of the session. */
  deleteSession(sessionId: string): Promise<void>;
  /** Whether `ref` was stored for the session and evicted since to keep within its bound. */
  wasEvicted(sessionId: string, ref: string): Promise<boolean>;
}
