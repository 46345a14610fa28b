/**
 * The studio's protections as a browser meets them: without the printed token (or with a
 * wrong one) the page is refused; signed in, no secret of the declarations (a canary in a
 * stdio server's env and in an HTTP server's header) and not the studio token appear in any
 * page's HTML, in any response the page received, or on the event stream; every response
 * carries the CSP and none a CORS header.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from 'playwright-core';
import { chromiumPath, newTestContext, saveScreenshot, useChromium } from '../support/browser.js';
import { startEverythingHttp } from '../support/mcp-fixtures.js';
import type { EverythingHttp } from '../support/mcp-fixtures.js';
import { useStudioProcess } from '../support/studio.js';
import type { StudioProcess } from '../support/studio.js';
import {
  selectTool,
  showPage,
  STUDIO_PAGES,
  STUDIO_WAIT,
  waitForResult,
  waitForServerStatus,
  withStudio,
} from '../support/studio-page.js';
import { ALLOW_ALL, CANARY, everythingServer, httpServer } from '../support/studio-servers.js';

const chromium = chromiumPath();

/** What the page received: each response's URL, status, headers and (non-streamed) body. */
interface Received {
  readonly url: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

async function receive(response: Response): Promise<Received> {
  const headers = await response.allHeaders();
  const streamed = (headers['content-type'] ?? '').includes('text/event-stream');
  let body = '';
  // an event stream never ends: it is read on its own below
  if (!streamed && response.request().method() !== 'OPTIONS') {
    body = await response.text().catch(() => '');
  }
  return { url: response.url(), status: response.status(), headers, body };
}

/** Reads the event stream with the page's cookie until `until` resolves; returns what came. */
async function readEvents(
  studio: StudioProcess,
  cookie: string,
  until: Promise<unknown>,
): Promise<string> {
  const controller = new AbortController();
  const response = await fetch(`${studio.origin}/api/events`, {
    headers: { cookie, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  let text = '';
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body ?? []) text += decoder.decode(chunk as Uint8Array);
    } catch {
      // aborted below
    }
  })();
  await until;
  controller.abort();
  await reading;
  return text;
}

describe.skipIf(!chromium)('studio: security in the browser', () => {
  const chrome = useChromium(chromium);
  let remote: EverythingHttp;
  beforeAll(async () => {
    remote = await startEverythingHttp();
  });
  afterAll(async () => {
    await remote?.close();
  });
  const studio = useStudioProcess(() => ({
    servers: { everything: everythingServer(), remote: httpServer(remote.url) },
    args: ALLOW_ALL,
  }));

  it('refuses the page without the token, or with a wrong one', async () => {
    const context = await newTestContext(chrome.browser);
    try {
      const page = await context.newPage();
      for (const path of ['/', '/?token=not-the-token', '/api/servers']) {
        const response = await page.goto(`${studio.origin}${path}`);
        expect([401, 403]).toContain(response?.status());
        expect(await page.content()).toContain('STUDIO_FORBIDDEN');
        expect(await page.content()).not.toContain(studio.token);
      }
      await page.goto(`${studio.origin}/`);
      await saveScreenshot(page, 'refused');
      expect(await context.cookies()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows no secret in any page, response or event, and sends the CSP on every response', async () => {
    await withStudio(chrome.browser, studio, 'security', async ({ context, page }) => {
      const received: Promise<Received>[] = [];
      page.on('response', (response) => received.push(receive(response)));
      const cookies = await context.cookies(studio.origin);
      const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      // a cookie name per port: another studio on this machine keeps its own
      const name = `muster_studio_${studio.port}`;
      expect(cookies.map((c) => c.name)).toContain(name);
      const studioCookie = cookies.find((c) => c.name === name);
      expect(studioCookie?.httpOnly).toBe(true);
      expect(studioCookie?.sameSite).toBe('Strict');

      let done: () => void = () => undefined;
      const finished = new Promise<void>((resolve) => (done = resolve));
      const events = readEvents(studio, cookie, finished);

      const html: string[] = [];
      await waitForServerStatus(page, 'everything', 'connected');
      await waitForServerStatus(page, 'remote', 'connected');
      await page.reload();
      for (const name of STUDIO_PAGES) {
        await showPage(page, name);
        html.push(await page.content());
      }
      for (const server of ['everything', 'remote']) {
        await selectTool(page, server, 'echo');
        await page.getByTestId('field-message').fill(`canary check ${server}`);
        await page.getByTestId('tool-call').click();
        await waitForResult(page, `canary check ${server}`);
        html.push(await page.content());
      }
      done();
      const stream = await events;
      expect(stream).toContain('hello');

      const responses = await Promise.all(received);
      expect(responses.some((r) => new URL(r.url).pathname.startsWith('/api/'))).toBe(true);
      for (const text of [...html, stream]) {
        expect(text).not.toContain(CANARY);
        expect(text).not.toContain(studio.token);
      }
      for (const response of responses) {
        const where = `${response.status} ${response.url}`;
        expect(response.body, where).not.toContain(CANARY);
        expect(response.body, where).not.toContain(studio.token);
        expect(JSON.stringify(response.headers), where).not.toContain(CANARY);
        expect(response.headers['access-control-allow-origin'], where).toBeUndefined();
        if (new URL(response.url).origin !== studio.origin) continue;
        const csp = response.headers['content-security-policy'] ?? '';
        for (const directive of [
          "default-src 'self'",
          "script-src 'self'",
          "object-src 'none'",
          "frame-ancestors 'none'",
        ]) {
          expect(csp, where).toContain(directive);
        }
        expect(response.headers['x-content-type-options'], where).toBe('nosniff');
      }
    });
  });
});

/**
 * `muster studio --open` gives the browser a file, never the token URL: opened in Chromium,
 * that file signs the browser in (the load it starts is cross-site; the studio takes the
 * token on it and moves on to its page same-origin, so the Strict cookie is sent).
 */
describe.skipIf(!chromium)('studio: --open', () => {
  const chrome = useChromium(chromium);
  let record: string;
  let browser: string;
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-open-'));
    record = join(dir, 'opened.txt');
    // the "browser" only notes the path it was given
    browser = join(dir, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > "${record}"\n`);
    chmodSync(browser, 0o755);
  });
  const studio = useStudioProcess(() => ({
    servers: {},
    args: ['--open'],
    env: { MUSTER_BROWSER: browser },
  }));

  it('signs the browser in from the file it hands over', async () => {
    await expect.poll(() => existsSync(record), STUDIO_WAIT).toBe(true);
    const file = readFileSync(record, 'utf8');
    expect(file).not.toContain(studio.token);
    const context = await newTestContext(chrome.browser);
    try {
      const page = await context.newPage();
      await page.goto(`file://${file}`);
      await page.waitForURL((url) => url.origin === studio.origin && url.search === '');
      await page.getByTestId('nav-servers').waitFor({ timeout: STUDIO_WAIT.timeout });
      const names = (await context.cookies(studio.origin)).map((c) => c.name);
      expect(names).toEqual([`muster_studio_${studio.port}`]);
    } finally {
      await context.close();
    }
  });
});
