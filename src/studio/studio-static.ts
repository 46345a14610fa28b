import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { errorBody } from './error-response.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Where the built page is: `dist/studio-ui/` next to this module's folder in the package
 * (`dist/studio/*.js`), or under `dist/` of the repository when this runs from
 * `src/studio/*.ts` (tsx, tests). Absent when neither holds an `index.html`.
 */
export function defaultUiDir(): string | undefined {
  const candidates = ['../studio-ui/', '../../dist/studio-ui/'].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

/**
 * Serves the page's static files from `dir` (`/` is `index.html`); nothing outside it is
 * reachable. Without built files every page request answers 503 `STUDIO_NOT_BUILT` saying
 * how to build them. Mounted after the API routes, for GET requests only.
 */
export function staticRoutes(app: Hono, dir: string | undefined): void {
  const root = dir === undefined ? undefined : resolve(dir);
  app.get('*', async (c) => {
    const path = c.req.path;
    if (path.startsWith('/api/') || path === '/api')
      return c.json(errorBody('STUDIO_NOT_FOUND', `No API route ${c.req.method} ${path}.`), 404);
    if (root === undefined || !existsSync(join(root, 'index.html'))) {
      return c.json(
        errorBody(
          'STUDIO_NOT_BUILT',
          "The studio's page is not built: run npm run build (it writes dist/studio-ui/), then start muster studio again.",
        ),
        503,
      );
    }
    const relative = path === '/' ? 'index.html' : decodePath(path.slice(1));
    const file = relative === undefined ? undefined : resolve(root, normalize(relative));
    if (file === undefined || !(file === root || file.startsWith(root + sep)) || !isFile(file))
      return c.json(errorBody('STUDIO_NOT_FOUND', `No file ${path} in the studio.`), 404);
    const body = await readFile(file);
    return c.body(body, 200, {
      'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    });
  });
}

function decodePath(path: string): string | undefined {
  try {
    const decoded = decodeURIComponent(path);
    return decoded.includes('\0') ? undefined : decoded;
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
