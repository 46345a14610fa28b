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
    const stray = await fetch(`${listener.redirectUri}?code=early&state=x`);
    expect(stray.status).toBe(409);
    const next = listener.nextCallback(new AbortController().signal);
    const answered = await fetch(`${listener.redirectUri}?code=c&state=s`);
    expect(answered.status).toBe(200);
    expect(await next).toBe(`${listener.redirectUri}?code=c&state=s`);
    expect((await fetch(`${listener.redirectUri}?code=again`)).status).toBe(409);
  });

  it('stops waiting when the login is cancelled', async () => {
    listener = await startCallbackListener();
    const controller = new AbortController();
    const next = listener.nextCallback(controller.signal);
    controller.abort(new Error('login timed out'));
    await expect(next).rejects.toThrow('login timed out');
  });
});
