import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type {
  ReadResourceResponse,
  StudioEvent,
  SubscriptionsResponse,
} from '../../../src/studio/api-types.js';
import { api, serverPath } from '../api.js';
import { FormError } from '../form-error.js';
import { ResourceContents } from '../resource-contents.js';
import { resourceKey } from '../studio-store.js';
import { useAction } from '../use-action.js';
import { useStudio, useStudioEvents } from '../use-studio.js';

/** Props of `<ResourcePanel>`. */
export interface ResourcePanelProps {
  readonly server: string;
  readonly resource: Readonly<Record<string, unknown>>;
}

/**
 * Whether the studio holds a subscription to `uri` of `server`, as the server says
 * (`GET /api/subscriptions`): loaded when the panel opens and whenever the event stream
 * (re)opens or the servers change, cleared by `resource.subscription.ended`. `undefined`
 * until the first answer.
 */
function useSubscribed(server: string, uri: string) {
  const [subscribed, setSubscribed] = useState<boolean | undefined>(undefined);
  // answers of older requests must not overwrite newer ones (or a click's result)
  const generation = useRef(0);
  const refresh = useCallback(() => {
    const mine = ++generation.current;
    void api
      .get<SubscriptionsResponse>('/api/subscriptions')
      .then((listed) => {
        if (mine !== generation.current) return;
        setSubscribed(listed.subscriptions.some((s) => s.server === server && s.uri === uri));
      })
      .catch(() => undefined);
  }, [server, uri]);
  useEffect(refresh, [refresh]);
  const set = useCallback((on: boolean) => {
    generation.current += 1;
    setSubscribed(on);
  }, []);
  return { subscribed, refresh, set };
}

/** One resource: read it, subscribe to it, and show each update the server announces. */
export function ResourcePanel({ server, resource }: ResourcePanelProps) {
  const uri = String(resource.uri);
  const { resourceUpdates } = useStudio();
  const [content, setContent] = useState<ReadResourceResponse | undefined>(undefined);
  const key = resourceKey(server, uri);
  const state = useSubscribed(server, uri);
  const subscribed = state.subscribed === true;
  const action = useAction();
  const load = useCallback(async () => {
    const path = `${serverPath(server, 'resource')}?uri=${encodeURIComponent(uri)}`;
    setContent(await api.get<ReadResourceResponse>(path));
  }, [server, uri]);
  const read = () => action.run(load);
  const { refresh, set } = state;
  const onEvent = useCallback(
    (event: StudioEvent) => {
      if (event.kind === 'hello' || event.kind === 'servers') refresh();
      if (event.kind === 'resource.subscription.ended') {
        if (event.server === server && event.uri === uri) set(false);
      }
      // an update: show the new content at once
      if (event.kind === 'resource.updated' && event.server === server && event.uri === uri)
        void action.run(load);
    },
    [server, uri, refresh, set, load, action.run],
  );
  useStudioEvents(onEvent);
  const subscribe = () =>
    action.run(async () => {
      await api.post(serverPath(server, 'subscriptions'), { uri });
      set(true);
    });
  const unsubscribe = () =>
    action.run(async () => {
      await api.delete(`${serverPath(server, 'subscriptions')}?uri=${encodeURIComponent(uri)}`);
      set(false);
    });
  const known = state.subscribed !== undefined;
  return (
    <div class="detail">
      <h3>{typeof resource.title === 'string' ? resource.title : String(resource.name ?? uri)}</h3>
      <p class="muted">
        <code>{uri}</code>
        {typeof resource.mimeType === 'string' && <> · {resource.mimeType}</>}
      </p>
      {typeof resource.description === 'string' && <p>{resource.description}</p>}
      <div class="toolbar">
        <button type="button" class="primary" data-testid="resource-read" onClick={read}>
          Read
        </button>
        <button
          type="button"
          data-testid="resource-subscribe"
          disabled={!known || subscribed || action.busy}
          onClick={subscribe}
        >
          Subscribe
        </button>
        <button
          type="button"
          data-testid="resource-unsubscribe"
          disabled={!known || !subscribed || action.busy}
          onClick={unsubscribe}
        >
          Unsubscribe
        </button>
        <span class="muted">
          <span data-testid="resource-subscription" data-subscribed={String(subscribed)}>
            {known ? (subscribed ? 'subscribed' : 'not subscribed') : 'checking…'}
          </span>{' '}
          · updates seen:{' '}
          <strong data-testid="resource-update-count">{resourceUpdates[key] ?? 0}</strong>
        </span>
      </div>
      <FormError error={action.error} />
      {content && <ResourceContents response={content} />}
    </div>
  );
}
