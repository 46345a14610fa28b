import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStudio } from '../../src/studio/index.js';
import type { RunningStudio } from '../../src/studio/index.js';
import { send, signIn } from '../support/studio-client.js';
import type { StudioClient, StudioReply } from '../support/studio-client.js';

// The studio's security points (SPEC 12a) over real loopback HTTP against a real studio.

const REQUIRED_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
];

let studio: RunningStudio;
let client: StudioClient;
let uiDir: string;

beforeAll(async () => {
  uiDir = mkdtempSync(join(tmpdir(), 'studio-ui-'));
  writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>studio page</title>');
  mkdirSync(join(uiDir, 'assets'));
  writeFileSync(join(uiDir, 'assets', 'app.js'), 'console.log(1)');
  studio = await startStudio({ uiDir, mcp: { strictConfig: true }, workdir: uiDir });
  client = await signIn(studio.url);
});
afterAll(async () => {
  await studio?.close();
});

const code = (r: StudioReply) => (r.json as { error?: { code?: string } } | undefined)?.error?.code;
const accessControl = (r: StudioReply) =>
  Object.keys(r.headers).filter((h) => h.toLowerCase().startsWith('access-control-'));

describe('the studio refuses', () => {
  it('an API request without the cookie, and a page request without it', async () => {
    for (const path of ['/api/info', '/api/events', '/api/sessions', '/']) {
      const r = await send(studio.port, { path });
      expect(r.status, path).toBe(403);
      expect(code(r), path).toBe('STUDIO_FORBIDDEN');
    }
  });

  it('a wrong token, and a cookie it did not set', async () => {
    const wrong = await send(studio.port, { path: '/?token=' + 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const forged = await send(studio.port, {
      path: '/api/info',
      headers: { cookie: `muster_studio_${studio.port}=` + 'y'.repeat(43) },
    });
    expect(forged.status).toBe(403);
  });

  it('a Host that is not its loopback address (DNS rebinding), even with the cookie', async () => {
    for (const host of [
      `evil.example:${studio.port}`,
      `127.0.0.1:${studio.port + 1}`,
      '127.0.0.1',
    ]) {
      const r = await send(studio.port, {
        path: '/api/info',
        headers: { host, cookie: client.cookie },
      });
      expect(r.status, host).toBe(403);
      expect(code(r)).toBe('STUDIO_FORBIDDEN');
    }
    const ok = await send(studio.port, {
      path: '/api/info',
      headers: { host: `localhost:${studio.port}`, cookie: client.cookie },
    });
    expect(ok.status).toBe(200);
  });

  it('a foreign Origin on a GET and on a POST, even with the cookie', async () => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${studio.port + 1}`, 'null']) {
      const get = await send(studio.port, {
        path: '/api/info',
        headers: { cookie: client.cookie, origin },
      });
      expect(get.status, origin).toBe(403);
      const post = await send(studio.port, {
        method: 'POST',
        path: '/api/runs',
        body: { prompt: 'hi' },
        headers: { cookie: client.cookie, origin, 'content-type': 'application/json' },
      });
      expect(post.status, origin).toBe(403);
      expect(code(post)).toBe('STUDIO_FORBIDDEN');
    }
  });

  it('a load another site or port starts (Sec-Fetch-Site), even with the cookie and no Origin', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const r = await send(studio.port, {
        path: '/api/sessions',
        headers: { cookie: client.cookie, 'sec-fetch-site': site },
      });
      expect(r.status, site).toBe(403);
    }
    for (const site of ['same-origin', 'none']) {
      const r = await send(studio.port, {
        path: '/api/sessions',
        headers: { cookie: client.cookie, 'sec-fetch-site': site },
      });
      expect(r.status, site).toBe(200);
    }
  });

  it('the event stream without the cookie; with it, the stream has the same headers', async () => {
    expect((await send(studio.port, { path: '/api/events' })).status).toBe(403);
    const headers = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const r = request(
        {
          host: '127.0.0.1',
          port: studio.port,
          path: '/api/events',
          headers: { cookie: client.cookie },
        },
        (res) => {
          resolve(res.headers);
          r.destroy();
        },
      );
      r.on('error', reject);
      r.end();
    });
    expect(headers['content-type']).toContain('text/event-stream');
    expect(headers['cache-control']).toBe('no-store');
    expect(String(headers['content-security-policy'])).toContain("default-src 'self'");
    expect(Object.keys(headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('a POST without the cookie, without an Origin, or with a body that is not JSON', async () => {
    const json = { 'content-type': 'application/json' };
    const noCookie = await send(studio.port, {
      method: 'POST',
      path: '/api/runs',
      body: { prompt: 'hi' },
      headers: { origin: studio.origin, ...json },
    });
    expect(noCookie.status).toBe(403);
    const noOrigin = await send(studio.port, {
      method: 'POST',
      path: '/api/runs',
      body: { prompt: 'hi' },
      headers: { cookie: client.cookie, ...json },
    });
    expect(noOrigin.status).toBe(403);
    const form = await send(studio.port, {
      method: 'POST',
      path: '/api/runs',
      body: 'prompt=hi',
      headers: {
        cookie: client.cookie,
        origin: studio.origin,
        'content-type': 'application/x-www-form-urlencoded',
      },
    });
    expect(form.status).toBe(403);
    expect(code(form)).toBe('STUDIO_FORBIDDEN');
  });

  it('a port that is in use, saying to pick another', async () => {
    await expect(
      startStudio({ port: studio.port, mcp: { strictConfig: true } }),
    ).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      message: expect.stringContaining('--port'),
    });
  });

  it('to listen on anything but the loopback address', async () => {
    for (const host of ['0.0.0.0', '192.168.1.10', '::']) {
      await expect(startStudio({ host, mcp: { strictConfig: true } })).rejects.toMatchObject({
        code: 'INVALID_CONFIGURATION',
      });
    }
  });
});

describe('the studio', () => {
  it('picks a free port with port 0, and prints a URL with the token on its loopback origin', () => {
    expect(studio.port).toBeGreaterThan(0);
    expect(studio.origin).toBe(`http://127.0.0.1:${studio.port}`);
    expect(studio.url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${studio.port}/\\?token=[\\w-]{32,}$`),
    );
  });

  it('exchanges the token for an HttpOnly SameSite=Strict cookie and redirects without it', async () => {
    const token = new URL(studio.url).searchParams.get('token')!;
    const r = await send(studio.port, { path: `/?token=${token}` });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    const cookie = r.headers['set-cookie']![0]!;
    const flags = cookie.split(';').map((f) => f.trim().toLowerCase());
    // a name per port: two studios on one machine keep their own cookie
    expect(flags[0]).toMatch(new RegExp(`^muster_studio_${studio.port}=`));
    expect(flags).toContain('httponly');
    expect(flags).toContain('samesite=strict');
    expect(flags).toContain('path=/');
    expect(cookie).not.toContain(token);
  });

  it('sends a strict CSP, nosniff, no-referrer and no-store on every answer, refusals too', async () => {
    const answers = [
      await client.get('/api/info'),
      await client.get('/'),
      await client.get('/api/nothing-here'),
      await send(studio.port, { path: '/api/info' }),
      await send(studio.port, { path: '/api/info', headers: { host: 'evil.example' } }),
    ];
    for (const r of answers) {
      const csp = String(r.headers['content-security-policy']);
      for (const directive of REQUIRED_CSP) expect(csp).toContain(directive);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
    }
    expect(answers[0]!.headers['cache-control']).toBe('no-store');
  });

  it('never sends CORS headers, not even to a preflight or its own origin', async () => {
    const preflight = await send(studio.port, {
      method: 'OPTIONS',
      path: '/api/runs',
      headers: {
        origin: 'http://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(403);
    const own = await send(studio.port, {
      path: '/api/info',
      headers: { cookie: client.cookie, origin: studio.origin },
    });
    expect(own.status).toBe(200);
    for (const r of [preflight, own, await client.get('/')]) expect(accessControl(r)).toEqual([]);
  });

  it('serves the built page and nothing outside its folder', async () => {
    const page = await client.get('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('studio page');
    const script = await client.get('/assets/app.js');
    expect(script.headers['content-type']).toContain('text/javascript');
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/assets/../../x']) {
      expect((await client.get(path)).status, path).toBe(404);
    }
  });

  it('says how to build the page when it is not built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'studio-ui-empty-'));
    const bare = await startStudio({ uiDir: empty, mcp: { strictConfig: true }, workdir: empty });
    try {
      const c = await signIn(bare.url);
      const r = await c.get('/');
      expect(r.status).toBe(503);
      expect(code(r)).toBe('STUDIO_NOT_BUILT');
      expect(r.text).toContain('npm run build');
      expect((await c.get('/api/info')).status).toBe(200);
    } finally {
      await bare.close();
    }
  });

  it('refuses to start a run without a model, saying how to give one', async () => {
    const r = await client.post('/api/runs', { prompt: 'hi' });
    expect(r.status).toBe(400);
    expect(code(r)).toBe('INVALID_CONFIGURATION');
    expect(r.text).toContain('--model');
  });

  it('answers GET /api/info without secrets or paths', async () => {
    const r = await client.get('/api/info');
    expect(r.json).toMatchObject({ store: 'memory', apps: true });
    expect(typeof (r.json as { version: unknown }).version).toBe('string');
  });
});
