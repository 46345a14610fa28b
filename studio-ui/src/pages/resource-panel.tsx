import { useState } from 'preact/hooks';
import type { ReadResourceResponse } from '../../../src/studio/api-types.js';
import { api, serverPath } from '../api.js';
import { FormError } from '../form-error.js';
import { ResourceContents } from '../resource-contents.js';
import { resourceKey } from '../studio-store.js';
import { useAction } from '../use-action.js';
import { useStudio } from '../use-studio.js';

/** The subscriptions this page made, so a panel shown again knows its state. */
const subscriptions = new Set<string>();

/** Props of `<ResourcePanel>`. */
export interface ResourcePanelProps {
  readonly server: string;
  readonly resource: Readonly<Record<string, unknown>>;
}

/** One resource: read it, subscribe to it, and count the updates it announced. */
export function ResourcePanel({ server, resource }: ResourcePanelProps) {
  const uri = String(resource.uri);
  const { resourceUpdates } = useStudio();
  const [content, setContent] = useState<ReadResourceResponse | undefined>(undefined);
  const key = resourceKey(server, uri);
  const [subscribed, setSubscribedState] = useState(subscriptions.has(key));
  const setSubscribed = (on: boolean) => {
    if (on) subscriptions.add(key);
    else subscriptions.delete(key);
    setSubscribedState(on);
  };
  const action = useAction();
  const read = () =>
    action.run(async () => {
      const path = `${serverPath(server, 'resource')}?uri=${encodeURIComponent(uri)}`;
      setContent(await api.get<ReadResourceResponse>(path));
    });
  const subscribe = () =>
    action.run(async () => {
      await api.post(serverPath(server, 'subscriptions'), { uri });
      setSubscribed(true);
    });
  const unsubscribe = () =>
    action.run(async () => {
      await api.delete(`${serverPath(server, 'subscriptions')}?uri=${encodeURIComponent(uri)}`);
      setSubscribed(false);
    });
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
          disabled={subscribed || action.busy}
          onClick={subscribe}
        >
          Subscribe
        </button>
        <button
          type="button"
          data-testid="resource-unsubscribe"
          disabled={!subscribed || action.busy}
          onClick={unsubscribe}
        >
          Unsubscribe
        </button>
        <span class="muted">
          {subscribed ? 'subscribed' : 'not subscribed'} · updates seen:{' '}
          <strong data-testid="resource-update-count">{resourceUpdates[key] ?? 0}</strong>
        </span>
      </div>
      <FormError error={action.error} />
      {content && <ResourceContents response={content} />}
    </div>
  );
}
