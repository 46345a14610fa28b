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
  put(item: Omit<SessionArchiveItem, 'ref' | 'createdAt'>): Promise<SessionArchiveItem>;
  get(sessionId: string, ref: string): Promise<SessionArchiveItem | undefined>;
  list(sessionId: string): Promise<readonly SessionArchiveItem[]>;
  deleteSession(sessionId: string): Promise<void>;
  wasEvicted(sessionId: string, ref: string): Promise<boolean>;
}
