import type { McpNotice } from '../contracts/operation-types.js';

/**
 * Fans server notifications out to whoever listens (`listen()` streams, the elicitation
 * handler's completion watch). One hub per manager; listeners choose their server.
 */
export class NotificationHub {
  readonly #listeners = new Set<(notice: McpNotice) => void>();

  /** Delivers one notification to every listener; a listener that throws is skipped. */
  publish(notice: McpNotice): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(notice);
      } catch {
        // a listener's failure must not stop the others or the connection
      }
    }
  }

  /** Adds a listener; the returned function removes it. */
  subscribe(listener: (notice: McpNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
