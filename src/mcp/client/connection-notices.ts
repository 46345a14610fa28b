// The server notifications a connection forwards to `onNotification`: list changes through
// the client's `listChanged` option (it owns those methods), the rest as plain handlers.

/** The tools list-changed notification. */
export const TOOLS_CHANGED = 'notifications/tools/list_changed';
/** Server notifications handed to `onNotification` (list changes go through `listChanged`). */
export const FORWARDED = [
  'notifications/resources/updated',
  'notifications/message',
  'notifications/elicitation/complete',
] as const;

/** The `listChanged` options of prompts and resources, each reporting to `notify`. */
export function listChangedNotices(notify: (method: string, params: unknown) => void) {
  const on = (method: string) => ({
    autoRefresh: false,
    debounceMs: 0,
    onChanged: () => notify(method, undefined),
  });
  return {
    prompts: on('notifications/prompts/list_changed'),
    resources: on('notifications/resources/list_changed'),
  };
}
