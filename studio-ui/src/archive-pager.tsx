import { useEffect, useState } from 'preact/hooks';
import type {
  ArchiveListResponse,
  ArchivePageResponse,
  ArchivedRefView,
} from '../../src/studio/api-types.js';
import { api, toApiError, type ApiError } from './api.js';
import { FormError } from './form-error.js';

/** Bytes asked for per "Load more" (the studio's most per page). */
const PAGE_BYTES = 65536;

function archivePath(item: ArchivedRefView, offset: number): string {
  const session = encodeURIComponent(item.sessionId);
  return `/api/sessions/${session}/archive/${encodeURIComponent(item.ref)}?offset=${offset}&length=${PAGE_BYTES}`;
}

/**
 * One archived text item of a tool result, read a page at a time: "Load more" fetches the
 * next page and appends it, until the whole item is shown. A binary item shows its size.
 */
export function ArchivePager({ item }: { readonly item: ArchivedRefView }) {
  const [text, setText] = useState('');
  const [next, setNext] = useState<number | undefined>(0);
  const [loaded, setLoaded] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  if (item.kind !== 'text')
    return (
      <div class="archive-pager muted" data-testid="archive-pager" data-ref={item.ref}>
        archived {item.mimeType}, {item.totalBytes} bytes ({item.ref})
      </div>
    );
  const more = async () => {
    if (next === undefined) return;
    setBusy(true);
    try {
      const page = await api.get<ArchivePageResponse>(archivePath(item, next));
      setText((t) => t + (page.text ?? ''));
      setLoaded(page.offset + page.length);
      setNext(page.nextOffset);
      setError(undefined);
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="archive-pager" data-testid="archive-pager" data-ref={item.ref}>
      <div class="block-head">
        <span class="tag">archived</span>
        <code>{item.ref}</code>
        <span class="muted" data-testid="archive-progress">
          {loaded} / {item.totalBytes} bytes loaded
        </span>
      </div>
      {text !== '' && (
        <pre class="block text" data-testid="archive-text">
          {text}
        </pre>
      )}
      {next !== undefined && (
        <button type="button" data-testid="archive-more" disabled={busy} onClick={more}>
          {loaded === 0 ? 'Load the full result' : 'Load more'}
        </button>
      )}
      <FormError error={error} />
    </div>
  );
}

/** The pagers of a list of archived items. */
export function ArchivePagers({ items }: { readonly items: readonly ArchivedRefView[] }) {
  return (
    <>
      {items.map((item) => (
        <ArchivePager key={item.ref} item={item} />
      ))}
    </>
  );
}

/**
 * The archived items of one call of a run (found in the session's archive by its call id,
 * not in the text), each with its pager; nothing when the call's result was not archived.
 */
export function CallArchive({
  sessionId,
  callId,
  preview,
}: {
  readonly sessionId: string;
  readonly callId: string;
  /** What the model read of the result (the preview and its notes). */
  readonly preview: string;
}) {
  const [items, setItems] = useState<readonly ArchivedRefView[]>([]);
  useEffect(() => {
    let live = true;
    const path = `/api/sessions/${encodeURIComponent(sessionId)}/archive?callId=${encodeURIComponent(callId)}`;
    api
      .get<ArchiveListResponse>(path)
      .then((r) => live && setItems(r.items))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [sessionId, callId]);
  if (items.length === 0) return null;
  return (
    <div class="call-archive">
      <pre class="block text" data-testid="archive-preview">
        {preview}
      </pre>
      <ArchivePagers items={items} />
    </div>
  );
}
