import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStudio } from '../../src/studio/index.js';
import type { RunningStudio } from '../../src/studio/index.js';
import { send, signIn } from '../support/studio-client.js';
import type { StudioClient } from '../support/studio-client.js';

// The token exchange of a real studio over loopback HTTP: where it redirects, the page load
// another site starts (--open's file), and the cookie name per port.

let studio: RunningStudio;
let client: StudioClient;
let uiDir: string;

beforeAll(async () => {
  uiDir = mkdtempSync(join(tmpdir(), 'studio-ui-'));
  writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>studio page</title>');
  studio = await startStudio({ uiDir, mcp: { strictConfig: true }, workdir: uiDir });
  client = await signIn(studio.url);
});
afterAll(async () => {
  await studio?.close();
});

describe('the token exchange', () => {
  it('redirects to a path of its own only: leading slashes are collapsed', async () => {
    const token = new URL(studio.url).searchParams.get('token')!;
    for (const path of [`//evil.example/?token=${token}`, `///evil.example/x?token=${token}&a=1`]) {
      const r = await send(studio.port, { path });
      expect(r.status, path).toBe(303);
      const location = String(r.headers.location);
      expect(location, path).toMatch(/^\/[^/\\]/);
      expect(new URL(location, studio.origin).origin, path).toBe(studio.origin);
    }
    const r = await send(studio.port, { path: `//evil.example/?token=${token}` });
    expect(r.headers.location).toBe('/evil.example/');
  });

  it('takes the token on a page load another site started (--open), then moves on same-origin', async () => {
    const token = new URL(studio.url).searchParams.get('token')!;
    const navigate = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };
    const r = await send(studio.port, {
      path: `//evil.example/?token=${token}`,
      headers: { ...navigate, 'sec-fetch-dest': 'document' },
    });
    // a redirect would keep the load cross-site (no Strict cookie): a page of its own instead
    expect(r.status).toBe(200);
    expect(r.headers['set-cookie']?.[0]).toMatch(new RegExp(`^muster_studio_${studio.port}=`));
    expect(r.text).toContain('content="0; url=/evil.example/"');
    expect(r.text).not.toContain(token);
    // but not on a fetch, image or frame load from another site
    for (const dest of ['image', 'iframe', 'empty']) {
      const refused = await send(studio.port, {
        path: `/?token=${token}`,
        headers: { ...navigate, 'sec-fetch-dest': dest },
      });
      expect(refused.status, dest).toBe(403);
      expect(refused.headers['set-cookie'], dest).toBeUndefined();
    }
  });

  it('keeps two studios signed in side by side (a cookie name per port)', async () => {
    const other = await startStudio({ uiDir, mcp: { strictConfig: true }, workdir: uiDir });
    try {
      const second = await signIn(other.url);
      expect(second.cookie.split('=')[0]).toBe(`muster_studio_${other.port}`);
      // a browser sends both cookies to both studios (cookies are per host, not port)
      const both = `${client.cookie}; ${second.cookie}`;
      for (const port of [studio.port, other.port]) {
        const r = await send(port, { path: '/api/info', headers: { cookie: both } });
        expect(r.status, String(port)).toBe(200);
      }
      // and one studio's cookie does not open the other
      const wrong = await send(other.port, {
        path: '/api/info',
        headers: { cookie: client.cookie.replace(`_${studio.port}=`, `_${other.port}=`) },
      });
      expect(wrong.status).toBe(403);
    } finally {
      await other.close();
    }
  });
});
