import type { Transport } from '@modelcontextprotocol/client';
import { interceptIncoming } from '../transports/incoming-messages.js';

function isResponse(message: unknown): boolean {
  const m = message as { id?: unknown; result?: unknown; error?: unknown } | null;
  return (
    typeof m === 'object' && m !== null && m.id !== undefined && ('result' in m || 'error' in m)
  );
}

/**
 * Makes a response reach the client only after the notifications that arrived before it.
 * The official client (2.4.0) runs notification handlers a microtask later but settles
 * responses at once, so a progress notification that arrives together with its result was
 * dropped ("unknown progress token"). A response that arrives right behind a notification is
 * handed over on the next macrotask instead, after every handler queued before it has run.
 * `onResponse` hears every response id as it arrives, before it is handed over. Composes with
 * the transport's other interceptors (the task capture).
 */
export function keepResponsesAfterNotifications(
  transport: Transport,
  onResponse?: (id: unknown) => void,
): void {
  // True from a notification until the microtasks queued behind it have run: only a response
  // that arrives in that window can overtake a notification, so only it is delayed.
  let notified = false;
  interceptIncoming(transport, (message, extra, deliver) => {
    if (isResponse(message)) {
      onResponse?.((message as { id: unknown }).id);
      if (notified) setImmediate(() => deliver(message, extra));
      else deliver(message, extra);
      return;
    }
    deliver(message, extra);
    if (!notified) {
      notified = true;
      queueMicrotask(() => {
        notified = false;
      });
    }
  });
}
