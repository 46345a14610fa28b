/**
 * Headless Chromium for the browser tests, driven by playwright-core (no browser download:
 * the system's Chromium, Debian's `chromium` package, or `CHROMIUM_PATH`). Missing, the
 * browser tests skip with a visible notice; missing under `CI=true`, that is a failure.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ROOT } from '../package/built-package.js';

/** Where Debian's `chromium` package installs the browser. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for a headless browser that talks to nothing but the pages it is sent to: no
 * sandbox (CI runs as root), no GPU, no QUIC, no first-run, update, sync or background
 * requests.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium executable (`CHROMIUM_PATH`, else {@link DEFAULT_CHROMIUM}) when it can run. */
export function chromiumPath(): string | undefined {
  const path = process.env['CHROMIUM_PATH'] || DEFAULT_CHROMIUM;
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    if (process.env['CI'] === 'true')
      throw new Error(
        `Chromium is not at ${path}, and CI=true: the browser tests must run in CI (apt-get install chromium, or set CHROMIUM_PATH).`,
      );
    console.warn(
      `Chromium is not at ${path}: the browser tests are skipped (apt-get install chromium, or set CHROMIUM_PATH).`,
    );
    return undefined;
  }
}

/**
 * Launches headless Chromium. Each launch gets a fresh, empty profile (playwright creates a
 * new user-data-dir for it and deletes it on close), so no cookie or cache crosses launches.
 */
export async function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: [...CHROMIUM_ARGS], timeout: 60_000 });
}

/** A context as the tests want it: a fixed viewport for screenshots, no service workers. */
export async function newTestContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    serviceWorkers: 'block',
  });
  context.setDefaultTimeout(20_000);
  return context;
}

/** `test-output/` at the repository root: ignored by git, written by tests only. */
export const TEST_OUTPUT = join(ROOT, 'test-output');

/** Where the studio tests put one screenshot per page, for `npm run docs:screenshots`. */
export const STUDIO_SCREENSHOTS = join(TEST_OUTPUT, 'studio');

/**
 * Saves a full-page PNG of `page` at `<dir>/<name>.png` (the folder is created) and returns
 * the file's path.
 */
export async function saveScreenshot(
  page: Page,
  name: string,
  dir: string = STUDIO_SCREENSHOTS,
): Promise<string> {
  const file = join(dir, `${name}.png`);
  mkdirSync(dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  return file;
}

/** The browser of this test process, launched by the first file that needs one. */
let shared: Promise<Browser> | undefined;

/**
 * Chromium for the calling test file: launched once per test process (the browser suite runs
 * its files one after another in one process) and kept for the next file, since every test
 * opens a context of its own (`newTestContext`: no cookie, storage or cache crosses contexts)
 * and closes it. Playwright closes the browser when the process exits. Read `browser` inside
 * tests. Call it inside a `describe.skipIf(!path)` so a skipped suite launches nothing.
 */
export function useChromium(path: string | undefined): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (path === undefined) throw new Error('useChromium(): no Chromium to launch');
    const launched = await (shared ??= launchChromium(path));
    if (launched.isConnected()) browser = launched;
    else browser = await (shared = launchChromium(path)); // it crashed in an earlier file
  }, 90_000);
  afterAll(async () => {
    // a file leaves no context of its own behind for the next one
    await Promise.all(browser?.contexts().map((c) => c.close()) ?? []);
  });
  return {
    get browser() {
      if (!browser) throw new Error('useChromium(): Chromium is launched in beforeAll');
      return browser;
    },
  };
}
