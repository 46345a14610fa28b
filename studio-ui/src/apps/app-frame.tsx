/** @jsxImportSource preact */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AppViewResponse, ToolResultView, ToolView } from '../../../src/studio/api-types.js';
import { ViewHost, requestAppView } from './view-host.js';

/** What the tools page hands an MCP Apps view. */
export interface AppFrameProps {
  readonly server: string;
  readonly tool: ToolView;
  readonly input: Readonly<Record<string, unknown>>;
  readonly result?: ToolResultView;
}

/** The height of a view before it reports its own. */
const INITIAL_HEIGHT = 160;

/**
 * Renders a tool's MCP Apps view in a sandboxed iframe (`allow-scripts` only: the view runs
 * in an opaque origin and can reach neither the studio's cookie nor its API). The view's
 * requests travel over `postMessage` to a bridge here, which makes them through the studio
 * API and so through its policy. A new `input` (a new call) loads the view afresh; a new
 * `result` is handed to the loaded view. Renders nothing for a tool without a view.
 */
export function AppFrame({ server, tool, input, result }: AppFrameProps) {
  const [view, setView] = useState<AppViewResponse>();
  const [src, setSrc] = useState<string>();
  const [height, setHeight] = useState(INITIAL_HEIGHT);
  const [error, setError] = useState<string>();
  const frame = useRef<HTMLIFrameElement>(null);
  const host = useRef<ViewHost | undefined>(undefined);
  const inputKey = JSON.stringify(input);

  useEffect(() => {
    setView(undefined);
    setSrc(undefined);
    setError(undefined);
    setHeight(INITIAL_HEIGHT);
    if (!tool.uiResourceUri) return undefined;
    let live = true;
    requestAppView(server, tool.name).then(
      (v) => live && setView(v),
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [server, tool.name, tool.uiResourceUri, inputKey]);

  // the bridge listens before the iframe navigates to the view, so no message is missed; each
  // view gets a fresh iframe (keyed by its URL), so an old bridge never hears a new view
  useEffect(() => {
    const iframe = frame.current;
    if (!view || !iframe) return undefined;
    let live = true;
    let h: ViewHost;
    try {
      h = new ViewHost({ iframe, server, tool, input, onSize: setHeight, onError: setError });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return undefined;
    }
    host.current = h;
    h.ready.then(
      () => live && setSrc(view.viewUrl),
      (err: unknown) => live && setError(`The view bridge did not start: ${String(err)}`),
    );
    return () => {
      live = false;
      host.current = undefined;
      void h.close();
    };
    // input and tool belong to the view: a new call (inputKey) fetches a new view object
  }, [view]);

  useEffect(() => {
    if (result && src) host.current?.showResult(result.raw);
  }, [result, src]);

  if (!tool.uiResourceUri) return null;
  return (
    <div class="app-view" data-resource-uri={tool.uiResourceUri}>
      {error !== undefined && (
        <p class="error" data-testid="form-error" role="alert">
          {error}
        </p>
      )}
      {view && (
        <iframe
          key={view.viewUrl}
          ref={frame}
          data-testid="app-frame"
          title={`${tool.title ?? tool.name} view`}
          sandbox="allow-scripts"
          allow={view.allow}
          referrerpolicy="no-referrer"
          {...(src ? { src } : {})}
          style={{
            width: '100%',
            height: `${height}px`,
            border: view.prefersBorder === false ? 'none' : '1px solid #8884',
            borderRadius: '4px',
          }}
        />
      )}
    </div>
  );
}
