/**
 * The studio's page as the browser tests drive it, through the `data-testid` contract of
 * the page (docs/studio.md): sign in with the printed URL, move between pages, wait for a
 * server's status, pick a tool.
 */
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { newTestContext, saveScreenshot, TEST_OUTPUT } from './browser.js';
import type { StudioProcess } from './studio.js';

/** The studio's pages (hash routes `#/<name>`, roots `page-<name>`, links `nav-<name>`). */
export const STUDIO_PAGES = [
  'servers',
  'tools',
  'resources',
  'runs',
  'approvals',
  'elicitations',
  'signin',
  'fleet',
] as const;

/** One of {@link STUDIO_PAGES}. */
export type StudioPageName = (typeof STUDIO_PAGES)[number];

/** How long the tests wait for something the studio does (connect, call, run). */
export const STUDIO_WAIT = { timeout: 30_000, interval: 100 } as const;

/**
 * Opens the printed URL (token included) in a fresh context: the studio sets its cookie and
 * redirects to `/` without the token. Resolves once the navigation is on screen.
 */
export async function openStudio(
  browser: Browser,
  studio: StudioProcess,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newTestContext(browser);
  const page = await context.newPage();
  await page.goto(studio.url);
  await page.waitForURL((url) => url.origin === studio.origin && !url.search.includes('token='));
  await page.getByTestId('nav-servers').waitFor();
  return { context, page };
}

/** A second tab of the same (signed-in) context, opened on `#/<name>`. */
export async function openTab(
  context: BrowserContext,
  studio: StudioProcess,
  name: StudioPageName,
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${studio.origin}/#/${name}`);
  await page.getByTestId(`page-${name}`).waitFor();
  return page;
}

/** Clicks `nav-<name>` and waits for `page-<name>`. */
export async function showPage(page: Page, name: StudioPageName): Promise<void> {
  await page.getByTestId(`nav-${name}`).click();
  await page.getByTestId(`page-${name}`).waitFor();
}

/** An element's text, trimmed ('' when it has none). */
export async function textOf(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').trim();
}

/** `[data-testid="<id>"][<attribute>="<value>"]` under `scope`. */
export function byTestIdAnd(
  scope: Page | Locator,
  testId: string,
  attribute: string,
  value: string,
): Locator {
  return scope.locator(`[data-testid="${testId}"][${attribute}=${JSON.stringify(value)}]`);
}

/** The row of server `name` on the Servers page. */
export function serverRow(page: Page, name: string): Locator {
  return byTestIdAnd(page, 'server-row', 'data-server', name);
}

/** Shows the Servers page and waits until server `name` has status `status`. */
export async function waitForServerStatus(
  page: Page,
  name: string,
  status: string,
  timeout = 60_000,
): Promise<void> {
  await showPage(page, 'servers');
  const row = serverRow(page, name).getByTestId('server-status');
  await expect.poll(() => textOf(row), { ...STUDIO_WAIT, timeout }).toBe(status);
}

/** Shows the Tools page, selects `server`, then its tool `tool`; resolves when its form shows. */
export async function selectTool(page: Page, server: string, tool: string): Promise<void> {
  await showPage(page, 'tools');
  await page.getByTestId('tools-server').selectOption(server);
  await byTestIdAnd(page, 'tool-item', 'data-tool', tool).click();
  await page.getByTestId('tool-call').waitFor();
}

/** Waits until `tool-result` (of the last call) holds `expected`; returns its text. */
export async function waitForResult(page: Page, expected: string | RegExp): Promise<string> {
  const result = page.getByTestId('tool-result');
  await expect.poll(() => textOf(result), STUDIO_WAIT).toMatch(expected);
  return textOf(result);
}

/** Shows the Runs page and starts a run of `prompt`. */
export async function startRun(page: Page, prompt: string): Promise<void> {
  await showPage(page, 'runs');
  await page.getByTestId('run-prompt').fill(prompt);
  await page.getByTestId('run-start').click();
}

/** The texts of the run's timeline items of `type` (`tool.decision`, `tool.completed`, …). */
export async function timelineTexts(page: Page, type: string): Promise<string[]> {
  const items = page.getByTestId('run-timeline').locator('[data-testid="timeline-item"]');
  const texts: string[] = [];
  for (const item of await items.all()) {
    if ((await item.getAttribute('data-type')) === type) texts.push(await textOf(item));
  }
  return texts;
}

/** Where a failed test leaves screenshots of its tabs. */
export const FAILURE_SCREENSHOTS = join(TEST_OUTPUT, 'failures');

/**
 * Opens the studio (see {@link openStudio}), runs `test` with the context and its first tab,
 * and closes the context. When `test` fails, every tab is saved to
 * `test-output/failures/<name>-<n>.png` and the studio's output is printed, then the error
 * is thrown again.
 */
export async function withStudio(
  browser: Browser,
  studio: StudioProcess,
  name: string,
  test: (opened: { context: BrowserContext; page: Page }) => Promise<void>,
): Promise<void> {
  const opened = await openStudio(browser, studio);
  try {
    await test(opened);
  } catch (error) {
    const pages = opened.context.pages();
    for (const [index, tab] of pages.entries()) {
      await saveScreenshot(tab, `${name}-${index + 1}`, FAILURE_SCREENSHOTS).catch(() => '');
    }
    const redact = (text: string) => text.split(studio.token).join('<token>');
    const stdout = redact(studio.output().stdout);
    const stderr = redact(studio.output().stderr);
    console.error(`${name} failed; screenshots in ${FAILURE_SCREENSHOTS}.
studio stdout:
${stdout}
studio stderr:
${stderr}`);
    throw error;
  } finally {
    await opened.context.close();
  }
}
