import { describe, expect, it } from 'vitest';
import { appViewAllow, buildAppViewCsp } from './app-csp.js';

const directive = (header: string, name: string) =>
  header
    .split('; ')
    .find((d) => d.startsWith(`${name} `))
    ?.slice(name.length + 1);

describe('buildAppViewCsp', () => {
  it('is the restrictive default when nothing is declared', () => {
    const csp = buildAppViewCsp(undefined);
    expect(csp).toEqual({
      ok: true,
      header:
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:; connect-src 'none'; frame-src 'none'; base-uri 'self'; object-src 'none'; form-action 'none'; frame-ancestors 'self'; sandbox allow-scripts",
    });
  });

  it('maps each declared list to its directives', () => {
    const csp = buildAppViewCsp({
      connectDomains: [
        'https://api.example.com',
        'wss://live.example.com',
        'http://localhost:8080',
      ],
      resourceDomains: ['https://*.cdn.example.com', 'https://CDN.example.com/'],
      frameDomains: ['https://www.youtube.com'],
      baseUriDomains: ['https://base.example.com'],
    });
    if (!csp.ok) throw new Error(csp.problem);
    expect(directive(csp.header, 'connect-src')).toBe(
      'https://api.example.com wss://live.example.com http://localhost:8080',
    );
    expect(directive(csp.header, 'script-src')).toBe(
      "'unsafe-inline' https://*.cdn.example.com https://cdn.example.com",
    );
    expect(directive(csp.header, 'img-src')).toBe(
      'data: https://*.cdn.example.com https://cdn.example.com',
    );
    expect(directive(csp.header, 'frame-src')).toBe('https://www.youtube.com');
    expect(directive(csp.header, 'base-uri')).toBe('https://base.example.com');
    expect(directive(csp.header, 'frame-ancestors')).toBe("'self'");
  });

  it.each([
    ['connectDomains', "https://api.example.com 'unsafe-eval'"],
    ['connectDomains', 'https://api.example.com; script-src *'],
    ['connectDomains', '*'],
    ['resourceDomains', 'https://*'],
    ['resourceDomains', 'https://*.com'],
    ['resourceDomains', 'https://a.*.example.com'],
    ['resourceDomains', 'http://cdn.example.com'],
    ['resourceDomains', 'wss://cdn.example.com'],
    ['resourceDomains', 'data:'],
    ['resourceDomains', "'self'"],
    ['resourceDomains', 'https://cdn.example.com/lib.js'],
    ['resourceDomains', 'https://user@cdn.example.com'],
    ['resourceDomains', 'cdn.example.com'],
    ['frameDomains', 'javascript:alert(1)'],
    ['frameDomains', 'https://example.com:99999'],
    ['baseUriDomains', ' https://example.com'],
  ])('refuses %s %j', (field, origin) => {
    const csp = buildAppViewCsp({ [field]: ['https://fine.example.com', origin] });
    expect(csp.ok).toBe(false);
    if (!csp.ok) expect(csp.problem).toContain(`${field}[1] ${JSON.stringify(origin)}`);
  });

  it('refuses lists that are not arrays of strings, and a csp that is not an object', () => {
    expect(buildAppViewCsp({ connectDomains: 'https://api.example.com' }).ok).toBe(false);
    expect(buildAppViewCsp({ connectDomains: [42] }).ok).toBe(false);
    expect(buildAppViewCsp('default-src *').ok).toBe(false);
    expect(buildAppViewCsp({ connectDomains: Array(33).fill('https://a.example.com') }).ok).toBe(
      false,
    );
  });
});

describe("buildAppViewCsp and the studio's own origin", () => {
  const FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'];
  it.each(
    FIELDS.flatMap((field) =>
      [
        'http://127.0.0.1:4567',
        'http://localhost:4567',
        'http://[::1]:4567',
        'https://LOCALHOST:4567/',
        ...(field === 'connectDomains' ? ['ws://127.0.0.1:4567'] : []),
      ].map((origin) => [field, origin] as const),
    ),
  )('refuses %s %j when the studio listens on 4567', (field, origin) => {
    const csp = buildAppViewCsp({ [field]: ['https://fine.example.com', origin] }, 4567);
    expect(csp.ok).toBe(false);
    if (!csp.ok) expect(csp.problem).toContain("the studio's own origin");
  });

  it('still accepts loopback origins on other ports, and the default port of the scheme', () => {
    const csp = buildAppViewCsp(
      { connectDomains: ['http://127.0.0.1:4568', 'http://localhost', 'ws://[::1]:9000'] },
      4567,
    );
    expect(csp.ok).toBe(true);
    expect(buildAppViewCsp({ connectDomains: ['http://localhost'] }, 80).ok).toBe(false);
    expect(buildAppViewCsp({ connectDomains: ['https://127.0.0.1'] }, 443).ok).toBe(false);
  });
});

describe('appViewAllow', () => {
  it('maps the permissions a view asks for, and ignores the rest', () => {
    expect(appViewAllow(undefined)).toBe('');
    expect(appViewAllow({ camera: {}, clipboardWrite: {}, usb: {} })).toBe(
      'camera; clipboard-write',
    );
  });

  it('grants only permissions whose value is an object (false, null and the rest are not)', () => {
    expect(
      appViewAllow({
        camera: false,
        microphone: null,
        geolocation: true,
        clipboardWrite: 'yes',
      }),
    ).toBe('');
    expect(appViewAllow({ camera: false, microphone: {}, geolocation: [] })).toBe('microphone');
  });
});
