import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import type {
  AppViewResponse,
  CallToolResponse,
  ReadResourceResponse,
  StudioErrorBody,
  ToolView,
} from '../../../src/studio/api-types.js';

/** A `CallToolResult` as the view receives it. */
type ViewCallResult = Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>;
type ViewReadResult = Awaited<ReturnType<NonNullable<AppBridge['onreadresource']>>>;

const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** A studio API failure as `CODE: message`. */
async function failureText(res: Response): Promise<string> {
  const body = (await res.json().catch(() => undefined)) as StudioErrorBody | undefined;
  return body?.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${res.status}`;
}

const segment = (s: string) => encodeURIComponent(s);

/** Asks the studio for a one-time URL of the tool's view. */
export async function requestAppView(server: string, tool: string): Promise<AppViewResponse> {
  const res = await fetch(`/api/servers/${segment(server)}/tools/${segment(tool)}/app`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: '{}',
  });
  if (!res.ok) throw new Error(await failureText(res));
  return (await res.json()) as AppViewResponse;
}

const errorResult = (text: string): ViewCallResult => ({
  isError: true,
  content: [{ type: 'text', text }],
});

/**
 * A view's `tools/call`, made through the studio's policy like a call from the tools page
 * (`fromApp: true`): it may wait for an approval, and a denial comes back as an error result.
 */
async function callFromView(
  server: string,
  name: string,
  args: Record<string, unknown> | undefined,
  signal: AbortSignal,
): Promise<ViewCallResult> {
  const res = await fetch(`/api/servers/${segment(server)}/tools/${segment(name)}/call`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ arguments: args ?? {}, fromApp: true }),
    signal,
  });
  if (!res.ok) return errorResult(await failureText(res));
  const answer = (await res.json()) as CallToolResponse;
  if (answer.result) return answer.result.raw as ViewCallResult;
  const { decision, stage, reason } = answer.decision;
  return errorResult(
    `The studio's policy answered ${decision} (${stage})${reason ? `: ${reason}` : ''}; the tool did not run.`,
  );
}

async function readFromView(server: string, uri: string, signal: AbortSignal) {
  const res = await fetch(`/api/servers/${segment(server)}/resource?uri=${segment(uri)}`, {
    signal,
  });
  if (!res.ok) throw new Error(await failureText(res));
  return (await res.json()) as ReadResourceResponse as ViewReadResult;
}

/** What the host of one view is told and calls back. */
export interface ViewHostOptions {
  readonly iframe: HTMLIFrameElement;
  readonly server: string;
  readonly tool: ToolView;
  readonly input: Readonly<Record<string, unknown>>;
  readonly onSize: (height: number) => void;
  readonly onError: (message: string) => void;
}

function hostContext(tool: ToolView): McpUiHostContext {
  const dark = globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches === true;
  return {
    toolInfo: {
      tool: {
        name: tool.name,
        inputSchema: tool.inputSchema,
        ...(tool.title ? { title: tool.title } : {}),
        ...(tool.description ? { description: tool.description } : {}),
      } as NonNullable<McpUiHostContext['toolInfo']>['tool'],
    },
    theme: dark ? 'dark' : 'light',
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    platform: 'web',
    locale: navigator.language,
  };
}

/**
 * The studio's side of one MCP Apps view: an `AppBridge` with no MCP client of its own (the
 * view's requests go through the studio API) on a `PostMessageTransport` that accepts only
 * messages whose `event.source` is the iframe's window. After the view's
 * `ui/notifications/initialized` it gets the tool input, then the result once there is one.
 */
export class ViewHost {
  /** Resolves once the bridge listens: only then may the iframe load the view. */
  readonly ready: Promise<void>;
  readonly #bridge: AppBridge;
  readonly #input: Readonly<Record<string, unknown>>;
  readonly #calls = new AbortController();
  #initialized = false;
  #result: Readonly<Record<string, unknown>> | undefined;
  #resultSent: Readonly<Record<string, unknown>> | undefined;

  constructor(o: ViewHostOptions) {
    this.#input = o.input;
    const bridge = new AppBridge(
      null,
      { name: 'muster-studio', version: '1.0.0' },
      { serverTools: {}, serverResources: {}, logging: {} },
      { hostContext: hostContext(o.tool) },
    );
    const signalOf = (extra: unknown) => {
      const own = (extra as { mcpReq?: { signal?: AbortSignal } } | undefined)?.mcpReq?.signal;
      return own ? AbortSignal.any([own, this.#calls.signal]) : this.#calls.signal;
    };
    bridge.oncalltool = (params, extra) =>
      callFromView(o.server, params.name, params.arguments, signalOf(extra));
    bridge.onreadresource = (params, extra) => readFromView(o.server, params.uri, signalOf(extra));
    bridge.addEventListener('sizechange', ({ height }) => {
      if (typeof height === 'number' && height > 0) o.onSize(Math.ceil(height));
    });
    bridge.addEventListener('initialized', () => {
      this.#initialized = true;
      void this.#bridge
        .sendToolInput({ arguments: { ...this.#input } })
        .then(() => this.#flushResult())
        .catch((err: unknown) => o.onError(`The view did not take its input: ${String(err)}`));
    });
    this.#bridge = bridge;
    const target = o.iframe.contentWindow;
    if (!target) throw new Error('The view frame has no window yet.');
    this.ready = bridge.connect(new PostMessageTransport(target, target));
  }

  /** Hands the view the tool's result (`ui/notifications/tool-result`), once per result. */
  showResult(raw: Readonly<Record<string, unknown>>): void {
    this.#result = raw;
    if (this.#initialized) void this.#flushResult();
  }

  async #flushResult(): Promise<void> {
    const result = this.#result;
    if (!result || result === this.#resultSent) return;
    this.#resultSent = result;
    await this.#bridge.sendToolResult(result as Parameters<AppBridge['sendToolResult']>[0]);
  }

  /** Asks the view to tear down (briefly), then stops listening and cancels its calls. */
  async close(): Promise<void> {
    this.#calls.abort();
    if (this.#initialized)
      await this.#bridge.teardownResource({}, { timeout: 500 }).catch(() => undefined);
    await this.#bridge.close().catch(() => undefined);
  }
}
