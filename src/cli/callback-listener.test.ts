import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startCallbackListener } from './callback-listener.js';
import type { CallbackListener } from './callback-listener.js';

let listener: CallbackListener | undefined;
afterEach(async () => {
  await listener?.close();
});

describe('the sign-in callback listener', () => {
  it('listens on 127.0.0.1 and redirects the start URL only once the login URL is known', async () => {
    listener = await startCallbackListener();
    expect(listener.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(listener.startUrl.startsWith(new URL(listener.redirectUri).origin)).toBe(true);
    expect((await fetch(listener.startUrl, { redirect: 'manual' })).status).toBe(404);
    listener.setAuthorizationUrl('https://auth.example.com/authorize?state=s');
    const started = await fetch(listener.startUrl, { redirect: 'manual' });
    expect(started.status).toBe(302);
    expect(started.headers.get('location')).toBe('https://auth.example.com/authorize?state=s');
    expect((await fetch(new URL('/start/guess', listener.startUrl))).status).toBe(404);
  });

  it('hands the waiting login its callback, and turns away one that nothing waits for', async () => {
    listener = await startCallbackListener();
    // before the login has an authorization URL, no callback belongs to it
    expect((await fetch(`${listener.redirectUri}?code=early&state=s`)).status).toBe(400);
    listener.setAuthorizationUrl('https://auth.example.com/authorize?state=s');
    const next = listener.nextCallback(new AbortController().signal);
    const answered = await fetch(`${listener.redirectUri}?code=c&state=s`);
    expect(answered.status).toBe(200);
    expect(await next).toBe(`${listener.redirectUri}?code=c&state=s`);
    expect((await fetch(`${listener.redirectUri}?code=again&state=s`)).status).toBe(409);
  });

  it('item-01: ignores a callback with another state or Host, and still takes the real one', async () => {
    listener = await startCallbackListener();
    listener.setAuthorizationUrl('https://auth.example.com/authorize?state=real-state&x=1');
    const next = listener.nextCallback(new AbortController().signal);
    const port = Number(new URL(listener.redirectUri).port);
    const forged = [
      await fetch(`${listener.redirectUri}?error=access_denied&state=forged`),
      await fetch(`${listener.redirectUri}?error=access_denied`),
      await fetch(`${listener.redirectUri}?code=c&state=real-state&state=forged`),
    ];
    expect(forged.map((r) => r.status)).toEqual([400, 400, 400]);
    expect(await forged[0]!.text()).toContain('ignored');
    // the right state, but sent to another host name (a page that rebound its DNS name)
    for (const host of [`evil.example:${port}`, `localhost:${port}`]) {
      expect(await statusFor(port, '/callback?code=forged&state=real-state', host)).toBe(400);
      expect(await statusFor(port, new URL(listener.startUrl).pathname, host)).toBe(400);
    }
    const real = await fetch(`${listener.redirectUri}?code=c&state=real-state`);
    expect(real.status).toBe(200);
    expect(await next).toBe(`${listener.redirectUri}?code=c&state=real-state`);
  });

  it('stops waiting when the login is cancelled', async () => {
    listener = await startCallbackListener();
    const controller = new AbortController();
    const next = listener.nextCallback(controller.signal);
    controller.abort(new Error('login timed out'));
    await expect(next).rejects.toThrow('login timed out');
  });
});

/** The status of a GET to 127.0.0.1:`port` sent with `host` as its Host header. */
function statusFor(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end();
  });
}
