import type { McpFacade } from '../mcp/index.js';

/** The MIME type of an MCP Apps view (`text/html;profile=mcp-app`). */
export const APP_VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/** A tool's view as its server sent it. */
export interface AppViewSource {
  readonly resourceUri: string;
  readonly html: string;
  /** `_meta.ui` of the content item, else of the `resources/list` entry (may be absent). */
  readonly ui?: Readonly<Record<string, unknown>>;
}

/** What reading a view needs of `agent.mcp`. */
export type AppViewMcp = Pick<McpFacade, 'list' | 'listTools' | 'readResource' | 'listResources'>;

/** Why a tool's view cannot be shown: no such tool or view (404), or a bad resource (502). */
export interface AppViewFailure {
  readonly status: 404 | 502;
  readonly code: 'STUDIO_NOT_FOUND' | 'STUDIO_APP_INVALID';
  readonly message: string;
}

type Meta = Readonly<Record<string, unknown>> | undefined;

const isObject = (v: unknown): v is Readonly<Record<string, unknown>> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The `ui://` view a tool declares: `_meta.ui.resourceUri`, else the older flat
 * `_meta["ui/resourceUri"]`; `undefined` without one.
 */
export function toolViewUri(meta: unknown): string | undefined {
  if (!isObject(meta)) return undefined;
  const ui = meta['ui'];
  const nested = isObject(ui) ? ui['resourceUri'] : undefined;
  const uri = typeof nested === 'string' ? nested : meta['ui/resourceUri'];
  return typeof uri === 'string' ? uri : undefined;
}

/** Whether a MIME type is the MCP Apps one (parameters compared without spaces or case). */
function isAppMimeType(mimeType: unknown): boolean {
  return (
    typeof mimeType === 'string' &&
    mimeType.replace(/\s+/g, '').toLowerCase() === APP_VIEW_MIME_TYPE
  );
}

const invalid = (message: string): AppViewFailure => ({
  status: 502,
  code: 'STUDIO_APP_INVALID',
  message,
});

/**
 * Reads the view of `tool` on `server` through the agent's MCP operations (`tools/list`, then
 * `resources/read` of its `ui://` URI). MCP errors (a server that is down, a failed read)
 * are thrown as the agent reports them.
 */
export async function loadAppView(
  mcp: AppViewMcp,
  server: string,
  tool: string,
): Promise<AppViewSource | AppViewFailure> {
  if (!mcp.list().some((s) => s.name === server))
    return {
      status: 404,
      code: 'STUDIO_NOT_FOUND',
      message: `No MCP server is named '${server}'.`,
    };
  const found = (await mcp.listTools(server)).find((t) => t.name === tool);
  if (!found)
    return {
      status: 404,
      code: 'STUDIO_NOT_FOUND',
      message: `The server '${server}' has no tool '${tool}'; reload the tools list.`,
    };
  const resourceUri = toolViewUri(found._meta);
  if (resourceUri === undefined)
    return {
      status: 404,
      code: 'STUDIO_NOT_FOUND',
      message: `The tool '${tool}' of '${server}' declares no MCP Apps view (_meta.ui.resourceUri).`,
    };
  if (!resourceUri.startsWith('ui://'))
    return invalid(`The tool '${tool}' declares a view that is not a ui:// URI: ${resourceUri}.`);
  const read = await mcp.readResource(server, resourceUri);
  const items = read.contents.filter((c) => c.uri === resourceUri);
  const content = (items.length > 0 ? items : read.contents)[0] as
    | (Record<string, unknown> & { _meta?: Meta })
    | undefined;
  if (!content) return invalid(`The view ${resourceUri} of '${server}' has no content.`);
  if (!isAppMimeType(content['mimeType']))
    return invalid(
      `The view ${resourceUri} of '${server}' is ${JSON.stringify(content['mimeType'] ?? 'untyped')}, not ${APP_VIEW_MIME_TYPE}; the server must serve its view with that MIME type.`,
    );
  const html =
    typeof content['text'] === 'string'
      ? content['text']
      : typeof content['blob'] === 'string'
        ? Buffer.from(content['blob'], 'base64').toString('utf8')
        : undefined;
  if (html === undefined)
    return invalid(`The view ${resourceUri} of '${server}' has no HTML text.`);
  const ui = isObject(content._meta?.['ui'])
    ? content._meta['ui']
    : await listedUi(mcp, server, resourceUri);
  return { resourceUri, html, ...(ui ? { ui } : {}) };
}

/** `_meta.ui` of the view's `resources/list` entry (first page), the fallback of the spec. */
async function listedUi(mcp: AppViewMcp, server: string, uri: string): Promise<Meta> {
  const listed = await mcp.listResources(server).catch(() => undefined);
  const entry = listed?.resources.find((r) => r.uri === uri) as { _meta?: Meta } | undefined;
  const ui = entry?._meta?.['ui'];
  return isObject(ui) ? ui : undefined;
}
