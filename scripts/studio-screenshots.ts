/**
 * Copies the studio screenshots the browser tests wrote (`test-output/studio/<page>.png`,
 * see `npm run test:browser`) into `docs/images/studio/` and rewrites the image list between
 * the markers of `docs/studio.md`. The tests never touch tracked files; this script is how
 * new screenshots reach the docs.
 *
 *   npm run test:browser && npm run docs:screenshots
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The markers around the generated list in docs/studio.md. */
export const MARKERS = {
  start: '<!-- studio-screenshots:start (npm run docs:screenshots) -->',
  end: '<!-- studio-screenshots:end -->',
} as const;

/** Captions of the screenshots the tests take, in the order the docs show them. */
export const CAPTIONS: Readonly<Record<string, string>> = {
  servers: 'Servers: every declared server, its status and protocol version',
  tools: 'Tools: a form generated from the input schema, the decision and the result',
  resources: 'Resources: a subscribed resource and the updates received',
  runs: 'Runs: the live timeline of a run, with its tool calls and decisions',
  approvals: 'Approvals: a pending call with its exact arguments',
  elicitations: 'Elicitations: a form rendered from the server’s requested schema',
  signin: 'Sign-in: a server that needs a login, with its authorization link',
  apps: 'MCP Apps: a tool’s view rendered in its sandboxed frame',
  refused: 'Opened without the token: refused',
  'resources-live': 'Resources: a subscription kept across a reload, with the updated content',
  'result-image': 'Tools: an image block of a result',
  'elicitation-url': 'Elicitations: a URL-mode request shown as a link, never opened',
  'servers-reconnected': 'Servers: a failed server connected again by Reconnect',
  'run-redirected': 'Runs: a call redirected from the Approvals page',
  'run-progress': 'Runs: the progress of a long-running call',
  'approvals-parked': 'Approvals: a run parked by another process, waiting in the store',
  'run-resumed': 'Approvals: the parked run allowed and resumed here',
};

/** The screenshot names in display order: the known pages first, then the rest by name. */
export function orderScreenshots(names: readonly string[]): string[] {
  const known = Object.keys(CAPTIONS);
  const rank = (name: string) => {
    const index = known.indexOf(name);
    return index < 0 ? known.length : index;
  };
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The Markdown list of `names` (images under `images/studio/`, relative to docs/). */
export function screenshotList(names: readonly string[]): string {
  return orderScreenshots(names)
    .map((name) => {
      const caption = CAPTIONS[name] ?? name;
      return `**${caption}**\n\n![${caption}](images/studio/${name}.png)`;
    })
    .join('\n\n');
}

/** `doc` with the text between {@link MARKERS} replaced by `list`; fails without markers. */
export function replaceBetweenMarkers(doc: string, list: string): string {
  const start = doc.indexOf(MARKERS.start);
  const end = doc.indexOf(MARKERS.end);
  if (start < 0 || end < start) {
    throw new Error(
      `docs/studio.md has no screenshot markers: add "${MARKERS.start}" and "${MARKERS.end}" under its Screenshots section.`,
    );
  }
  return `${doc.slice(0, start + MARKERS.start.length)}\n\n${list}\n\n${doc.slice(end)}`;
}

/** Copies the PNGs of `from` into `to` (removing older ones) and updates `doc`. */
export function publishScreenshots(from: string, to: string, doc: string): string[] {
  const names = existsSync(from)
    ? readdirSync(from)
        .filter((file) => file.endsWith('.png'))
        .map((file) => file.slice(0, -'.png'.length))
    : [];
  if (names.length === 0) {
    throw new Error(`No screenshots in ${from}: run npm run test:browser first.`);
  }
  mkdirSync(to, { recursive: true });
  for (const file of readdirSync(to)) {
    if (file.endsWith('.png') && !names.includes(file.slice(0, -'.png'.length))) {
      rmSync(join(to, file));
    }
  }
  for (const name of names) copyFileSync(join(from, `${name}.png`), join(to, `${name}.png`));
  writeFileSync(doc, replaceBetweenMarkers(readFileSync(doc, 'utf8'), screenshotList(names)));
  return orderScreenshots(names);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = resolve(import.meta.dirname, '..');
  try {
    const names = publishScreenshots(
      join(root, 'test-output', 'studio'),
      join(root, 'docs', 'images', 'studio'),
      join(root, 'docs', 'studio.md'),
    );
    console.log(`docs/studio.md: ${names.length} screenshots (${names.join(', ')})`);
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  }
}
