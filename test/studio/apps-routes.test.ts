import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/index.js';
import type { Agent } from '../../src/index.js';
import { ToolPolicy } from '../../src/policy/index.js';
import type { AppViewResponse, StudioErrorBody } from '../../src/studio/api-types.js';
import { appsRoutes, createAppsRoutes } from '../../src/studio/apps-routes.js';
import type { StudioContext } from '../../src/studio/studio-context.js';
import { fixturePath } from '../support/mcp-fixtures.js';

// The MCP Apps routes on a bare Hono app, with a real agent connected over stdio to the apps
// fixture (test/fixtures/mcp/apps-server.mjs, built with the official ext-apps helpers).

const APPS_UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };

let agent: Agent;
let app: Hono;
let ctx: StudioContext;
const lifetime = new AbortController();

beforeAll(() => {
  agent = createAgent({
    mcpServers: { apps: { command: process.execPath, args: [fixturePath('apps-server.mjs')] } },
    mcp: { strictConfig: true, clientExtensions: APPS_UI },
    policy: { default: 'allow' },
  });
  ctx = {
    agent,
    policy: new ToolPolicy({ default: 'allow' }),
    events: { publish: () => undefined },
    approvals: { pending: () => [] },
    elicitations: { pending: () => [] },
    info: { version: 'test', store: 'memory', apps: true },
    fleet: { queue: 'muster', schema: 'pgboss' },
    origin: 'http://127.0.0.1:1',
    signal: lifetime.signal,
  };
  app = new Hono();
  appsRoutes(app, ctx);
});

afterAll(async () => {
  lifetime.abort();
  await agent.close();
});

const json = { 'Content-Type': 'application/json' };
const ask = (tool: string, server = 'apps') =>
  app.request(`/api/servers/${server}/tools/${encodeURIComponent(tool)}/app`, {
    method: 'POST',
    headers: json,
    body: '{}',
  });

async function errorOf(res: Response): Promise<StudioErrorBody['error']> {
  return ((await res.json()) as StudioErrorBody).error;
}

describe('MCP Apps routes', () => {
  it('hands out a view URL that serves the view once, under the CSP its resource declares', async () => {
    const res = await ask('show-greeting');
    expect(res.status).toBe(200);
    const view = (await res.json()) as AppViewResponse;
    expect(view).toMatchObject({
      resourceUri: 'ui://apps/greeting.html',
      allow: 'clipboard-write',
      prefersBorder: true,
    });
    expect(view.viewUrl).toMatch(/^\/apps\/view\/[A-Za-z0-9_-]{43}$/);

    const page = await app.request(view.viewUrl, { headers: { 'Sec-Fetch-Dest': 'iframe' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('data-testid="view-stamp"');
    expect(html).toContain('callServerTool');
    const csp = page.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name!, values.join(' ')] as const;
      }),
    );
    expect(directives.get('default-src')).toBe("'none'");
    expect(directives.get('connect-src')).toBe('https://api.example.com');
    for (const d of ['script-src', 'style-src'])
      expect(directives.get(d)).toBe("'unsafe-inline' https://cdn.example.com");
    for (const d of ['img-src', 'media-src', 'font-src'])
      expect(directives.get(d)).toBe('data: https://cdn.example.com');
    expect(directives.get('frame-src')).toBe("'none'");
    expect(directives.get('frame-ancestors')).toBe("'self'");
    expect(directives.get('sandbox')).toBe('allow-scripts');
    expect(csp).not.toContain("'self' ");
    expect(page.headers.get('cache-control')).toBe('no-store');

    const again = await app.request(view.viewUrl);
    expect(again.status).toBe(404);
    expect((await errorOf(again)).code).toBe('STUDIO_NOT_FOUND');
  }, 30_000);

  it('gives each request its own URL, and refuses a view URL loaded outside an iframe', async () => {
    const first = (await (await ask('show-greeting')).json()) as AppViewResponse;
    const second = (await (await ask('show-greeting')).json()) as AppViewResponse;
    expect(first.viewUrl).not.toBe(second.viewUrl);
    const top = await app.request(first.viewUrl, { headers: { 'Sec-Fetch-Dest': 'document' } });
    expect(top.status).toBe(403);
    // the refusal did not use the nonce up
    expect((await app.request(first.viewUrl)).status).toBe(200);
    expect((await app.request(second.viewUrl)).status).toBe(200);
    expect((await app.request('/apps/view/not-a-nonce')).status).toBe(404);
  }, 30_000);

  it('lets a view URL expire unused', async () => {
    let now = 0;
    const timed = new Hono();
    createAppsRoutes({ ttlMs: 60_000, now: () => now })(timed, ctx);
    const ask2 = () =>
      timed.request('/api/servers/apps/tools/show-greeting/app', {
        method: 'POST',
        headers: json,
        body: '{}',
      });
    const late = (await (await ask2()).json()) as AppViewResponse;
    const early = (await (await ask2()).json()) as AppViewResponse;
    now = 59_999;
    expect((await timed.request(early.viewUrl)).status).toBe(200);
    now = 60_000;
    expect((await timed.request(late.viewUrl)).status).toBe(404);
    // each app has its own views: a URL of one is unknown to another
    const other = (await (await ask('show-greeting')).json()) as AppViewResponse;
    expect((await timed.request(other.viewUrl)).status).toBe(404);
  }, 30_000);

  it('refuses a view whose resource declares an invalid CSP domain', async () => {
    const res = await ask('bad-csp');
    expect(res.status).toBe(502);
    const error = await errorOf(res);
    expect(error.code).toBe('STUDIO_APP_INVALID');
    expect(error.message).toContain('connectDomains[0]');
    expect(error.message).toContain('https://api.example.com; script-src *');
  }, 30_000);

  it('refuses a view that is not text/html;profile=mcp-app', async () => {
    const res = await ask('wrong-mime');
    expect(res.status).toBe(502);
    const error = await errorOf(res);
    expect(error.code).toBe('STUDIO_APP_INVALID');
    expect(error.message).toContain('"text/html"');
  }, 30_000);

  it('answers 404 for a tool without a view, an unknown tool and an unknown server', async () => {
    for (const [tool, server, says] of [
      ['client-capabilities', 'apps', 'declares no MCP Apps view'],
      ['no-such-tool', 'apps', "has no tool 'no-such-tool'"],
      ['show-greeting', 'nowhere', "No MCP server is named 'nowhere'"],
    ] as const) {
      const res = await ask(tool, server);
      expect(res.status).toBe(404);
      const error = await errorOf(res);
      expect(error.code).toBe('STUDIO_NOT_FOUND');
      expect(error.message).toContain(says);
    }
  }, 30_000);
});
