/**
 * The browser suite's own harness: headless Chromium opens a page from a loopback server
 * (under a strict CSP, its script a file of its own) and takes a screenshot; it passes the
 * OAuth world's login and consent pages on its own; the MCP servers the studio tests declare
 * all connect; the studio's printed URL is recognized.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from '@modelcontextprotocol/client';
import { RecordingProvider, REDIRECT_URL } from '../auth/oauth-fixture-helpers.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import {
  chromiumPath,
  newTestContext,
  saveScreenshot,
  TEST_OUTPUT,
  useChromium,
} from '../support/browser.js';
import { runMuster } from '../support/cli.js';
import { createStudioProject, STUDIO_BIN, STUDIO_URL, studioEnv } from '../support/studio.js';
import {
  CANARY,
  everythingServer,
  filesystemServer,
  formServer,
  memoryServer,
} from '../support/studio-servers.js';

const CSP = "default-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'";
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>harness</title>
<script type="module" src="/app.js"></script></head>
<body><h1>Browser harness</h1><p data-testid="greeting">waiting for the script</p></body></html>`;
const SCRIPT = `const res = await fetch('/api/hello');
document.querySelector('[data-testid="greeting"]').textContent = (await res.json()).greeting;`;

/** A loopback server with one page, its script and one JSON route; records each path. */
async function startPageServer(): Promise<{ server: Server; origin: string; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    const send = (type: string, body: string) => {
      res.writeHead(200, { 'content-type': type, 'content-security-policy': CSP });
      res.end(body);
    };
    if (req.url === '/') send('text/html; charset=utf-8', PAGE);
    else if (req.url === '/app.js') send('text/javascript', SCRIPT);
    else if (req.url === '/api/hello') send('application/json', '{"greeting":"Hello, browser."}');
    else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, origin: `http://127.0.0.1:${address.port}`, paths };
}

const chromium = chromiumPath();

describe.skipIf(!chromium)('browser harness', () => {
  const chrome = useChromium(chromium);
  let site: Awaited<ReturnType<typeof startPageServer>>;
  beforeAll(async () => {
    site = await startPageServer();
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.server.close(resolve));
  });

  it('opens a loopback page under a strict CSP, runs its script, records responses, takes a screenshot', async () => {
    const context = await newTestContext(chrome.browser);
    try {
      const page = await context.newPage();
      const responses: string[] = [];
      page.on('response', (response) => responses.push(new URL(response.url()).pathname));
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${site.origin}/`);
      const greeting = page.getByTestId('greeting');
      await expect.poll(() => greeting.textContent()).toBe('Hello, browser.');
      expect(errors).toEqual([]);
      expect(responses).toEqual(expect.arrayContaining(['/', '/app.js', '/api/hello']));
      // nothing but the page's own requests (no favicon fetch from elsewhere, no update check)
      expect(site.paths.filter((p) => p !== '/favicon.ico')).toEqual([
        '/',
        '/app.js',
        '/api/hello',
      ]);

      const file = await saveScreenshot(page, 'harness', join(TEST_OUTPUT, 'browser'));
      const png = readFileSync(file);
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(png.length).toBeGreaterThan(1_000);
    } finally {
      await context.close();
    }
  });
  it("follows the OAuth world's login and consent pages to the client's redirect URI", async () => {
    const world = await startOAuthWorld();
    const context = await newTestContext(chrome.browser);
    try {
      const provider = new RecordingProvider();
      expect(await auth(provider, { serverUrl: world.mcpUrl })).toBe('REDIRECT');
      const page = await context.newPage();
      const paths: string[] = [];
      page.on('request', (request) => paths.push(new URL(request.url()).pathname));
      const callback = page.waitForRequest((request) => request.url().startsWith(REDIRECT_URL));
      // the redirect URI's port (9) is one Chromium never connects to: the navigation stops
      // there, as the fixture's own browse() stops at the redirect
      await page.goto(String(provider.authorizationUrl)).catch((error: Error) => {
        expect(error.message).toContain('ERR_UNSAFE_PORT');
      });
      const url = new URL((await callback).url());
      expect(paths.some((p) => p.startsWith('/interaction/'))).toBe(true);
      const code = url.searchParams.get('code') ?? '';
      expect(code).not.toBe('');
      const iss = url.searchParams.get('iss') ?? undefined;
      expect(await auth(provider, { serverUrl: world.mcpUrl, authorizationCode: code, iss })).toBe(
        'AUTHORIZED',
      );
    } finally {
      await context.close();
      await world.close();
    }
  });
});

describe('studio test setups', () => {
  it('declares MCP servers that all connect (muster mcp list on the same mcp.json)', async () => {
    const project = createStudioProject({
      everything: everythingServer(),
      memory: memoryServer(join(process.env['MUSTER_HOME'] ?? '', 'memory')),
      files: filesystemServer(join(process.env['MUSTER_HOME'] ?? '', 'files')),
      form: formServer(),
    });
    try {
      const run = await runMuster(STUDIO_BIN, ['--json', 'mcp', 'list'], {
        cwd: project.workdir,
        env: studioEnv(project.home),
      });
      expect(run.code, run.stderr).toBe(0);
      const listed = JSON.parse(run.stdout) as {
        servers: { name: string; status: string; tools: string[] }[];
      };
      const status = Object.fromEntries(listed.servers.map((s) => [s.name, s.status]));
      expect(status).toEqual({
        everything: 'connected',
        memory: 'connected',
        files: 'connected',
        form: 'connected',
      });
      const everything = listed.servers.find((s) => s.name === 'everything');
      expect(everything?.tools).toEqual(
        expect.arrayContaining(['echo', 'get-sum', 'toggle-subscriber-updates']),
      );
      expect(listed.servers.find((s) => s.name === 'form')?.tools).toEqual(['signup']);
      // the canary sits in the declaration only: `mcp list` redacts it too
      expect(run.stdout).not.toContain(CANARY);
    } finally {
      rmSync(project.root, { recursive: true, force: true });
    }
  });

  it('recognizes the printed URL whatever the words around it', () => {
    const line = 'Studio ready: http://127.0.0.1:43117/?token=Ab3_x-9 (Ctrl-C to stop)\n';
    const match = STUDIO_URL.exec(line);
    expect(match?.[0]).toBe('http://127.0.0.1:43117/?token=Ab3_x-9');
    expect(match?.[1]).toBe('43117');
    expect(match?.[2]).toBe('Ab3_x-9');
  });
});
