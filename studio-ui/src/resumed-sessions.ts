type Listener = () => void;

/**
 * The sessions resumed from the Approvals and Elicitations pages, newest first: their waits
 * leave the list once the run takes them up, and these keep showing how the run went.
 */
export class ResumedSessions {
  private ids: readonly string[] = [];
  private readonly listeners = new Set<Listener>();

  /** Puts `sessionId` first (once). */
  add(sessionId: string): void {
    this.ids = [sessionId, ...this.ids.filter((id) => id !== sessionId)];
    for (const listener of this.listeners) listener();
  }

  list(): readonly string[] {
    return this.ids;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The page's resumed sessions. */
export const resumedSessions = new ResumedSessions();
