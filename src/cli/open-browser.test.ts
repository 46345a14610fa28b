import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserCommand, openBrowser } from './open-browser.js';

describe('item-05: the browser opener fits the system', () => {
  it('uses xdg-open on Linux only: open on macOS, the URL handler on Windows, else none', () => {
    expect(browserCommand({}, 'linux')).toEqual({ program: 'xdg-open', args: [] });
    expect(browserCommand({}, 'darwin')).toEqual({ program: 'open', args: [] });
    expect(browserCommand({}, 'win32')).toEqual({
      program: 'rundll32',
      args: ['url.dll,FileProtocolHandler'],
    });
    for (const other of ['freebsd', 'openbsd', 'sunos', 'aix'] as const)
      expect(browserCommand({}, other)).toBeUndefined();
    // MUSTER_BROWSER wins everywhere; blank is unset
    for (const platform of ['linux', 'darwin', 'win32', 'freebsd'] as const)
      expect(browserCommand({ MUSTER_BROWSER: 'firefox' }, platform)).toEqual({
        program: 'firefox',
        args: [],
      });
    expect(browserCommand({ MUSTER_BROWSER: '  ' }, 'linux')?.program).toBe('xdg-open');
  });

  it('without an opener says so; with one hands it the URL as one argument, after its own', async () => {
    const none = await openBrowser(undefined, 'http://127.0.0.1:1/', {});
    expect(none).toMatchObject({ opened: false });
    expect(none.opened === false && none.reason).toMatch(/MUSTER_BROWSER/);

    const dir = mkdtempSync(join(tmpdir(), 'muster-open-'));
    try {
      const seen = join(dir, 'argv.json');
      const url = 'http://127.0.0.1:9/start?a=1&b=2 "x"';
      // a real program standing in for a browser: it records the arguments it was given
      const recorder = {
        program: process.execPath,
        args: [
          '-e',
          'require("node:fs").writeFileSync(process.env.SEEN, JSON.stringify(process.argv.slice(1)))',
        ],
      };
      const opened = await openBrowser(recorder, url, { SEEN: seen });
      expect(opened).toEqual({ opened: true });
      expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual([url]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
