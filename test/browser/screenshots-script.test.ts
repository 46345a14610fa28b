/** `npm run docs:screenshots`: copies the tests' screenshots and rewrites the docs' list. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MARKERS,
  orderScreenshots,
  publishScreenshots,
  replaceBetweenMarkers,
} from '../../scripts/studio-screenshots.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('studio screenshots script', () => {
  it('orders the known pages first, then the others by name', () => {
    expect(orderScreenshots(['zeta', 'runs', 'alpha', 'servers'])).toEqual([
      'servers',
      'runs',
      'alpha',
      'zeta',
    ]);
  });

  it('replaces only the text between the markers, and fails without them', () => {
    const doc = `# T\n\n## Screenshots\n\n${MARKERS.start}\nold\n${MARKERS.end}\n\n## After\n`;
    const out = replaceBetweenMarkers(doc, 'NEW');
    expect(out).toBe(
      `# T\n\n## Screenshots\n\n${MARKERS.start}\n\nNEW\n\n${MARKERS.end}\n\n## After\n`,
    );
    expect(replaceBetweenMarkers(out, 'NEW')).toBe(out);
    expect(() => replaceBetweenMarkers('# no markers', 'x')).toThrow(/markers/);
  });

  it('copies the PNGs, drops stale ones and lists them in the doc', () => {
    const root = mkdtempSync(join(tmpdir(), 'muster-shots-'));
    dirs.push(root);
    const from = join(root, 'out');
    const to = join(root, 'images');
    mkdirSync(from);
    mkdirSync(to);
    writeFileSync(join(from, 'tools.png'), 'png-tools');
    writeFileSync(join(from, 'servers.png'), 'png-servers');
    writeFileSync(join(to, 'gone.png'), 'old');
    const doc = join(root, 'studio.md');
    writeFileSync(doc, `## Screenshots\n\n${MARKERS.start}\n${MARKERS.end}\n`);

    expect(publishScreenshots(from, to, doc)).toEqual(['servers', 'tools']);
    expect(readdirSync(to).sort()).toEqual(['servers.png', 'tools.png']);
    expect(readFileSync(join(to, 'tools.png'), 'utf8')).toBe('png-tools');
    const text = readFileSync(doc, 'utf8');
    expect(text.indexOf('images/studio/servers.png')).toBeGreaterThan(0);
    expect(text.indexOf('images/studio/tools.png')).toBeGreaterThan(
      text.indexOf('images/studio/servers.png'),
    );
    expect(() => publishScreenshots(join(root, 'none'), to, doc)).toThrow(/test:browser/);
  });
});
