/**
 * The guide (docs/guide/) and the README as a reader meets them: every code block is embedded
 * from a file the examples runner runs or marked as a fragment, every relative link leads to a
 * file and anchor that exist, the table of contents links every page in reading order and
 * names a page for every entry point, and the README's first screen is short.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  blockProblems,
  brokenLinks,
  codeBlocks,
  embedAll,
  embedding,
  slug,
} from '../../scripts/docs/markdown.mjs';
import { listExamples } from '../../scripts/run-examples.mjs';
import { UNCHANGED } from '../../src/agent/step-commits.js';

const ROOT = resolve(import.meta.dirname, '../..');
const GUIDE = join(ROOT, 'docs/guide');
const README = join(ROOT, 'README.md');

/**
 * The guide's pages in reading order (issue 35). The table of contents lists those present
 * under docs/guide/, in this order; a page not named here fails the order test.
 */
const PAGE_ORDER = [
  'getting-started.md',
  'models.md',
  'host-tools.md',
  'mcp-servers.md',
  'configuration.md',
  'policy.md',
  'hooks.md',
  'tool-results.md',
  'limits.md',
  'budgets.md',
  'reliability.md',
  'resources-prompts.md',
  'client-handlers.md',
  'server-tool-schemas.md',
  'direct-calls.md',
  'sessions.md',
  'waits.md',
  'tasks.md',
  'watching.md',
  'deployment.md',
  'context.md',
  'children.md',
  'tool-search.md',
  'output.md',
  'authentication.md',
  'principals.md',
  'observability.md',
  'cli.md',
  'studio.md',
  'query.md',
  'errors.md',
];

const pages = () =>
  readdirSync(GUIDE)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .sort();
const read = (path: string) => readFileSync(path, 'utf8');

/** The text of the section under `## <title>` of a Markdown text. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  expect(start, `a "## ${title}" section`).toBeGreaterThanOrEqual(0);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

let scratch: string | undefined;
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});
/** A fresh temporary folder for planted files. */
function plantedFolder(): string {
  scratch ??= mkdtempSync(join(tmpdir(), 'muster-docs-'));
  return mkdtempSync(join(scratch, 'case-'));
}

describe('code blocks in the guide', () => {
  it('each is embedded from its file (file=, region=) or marked as a fragment', () => {
    const problems = [join(GUIDE, 'README.md'), ...pages().map((p) => join(GUIDE, p))].flatMap(
      (p) => blockProblems(ROOT, p),
    );
    expect(problems).toEqual([]);
  });

  it('a block neither embedded nor a fragment, one that drifted from its file, and a missing region fail', () => {
    const dir = plantedFolder();
    writeFileSync(
      join(dir, 'ex.ts'),
      'const a = 1;\n// #region show\nconsole.log(a);\n// #endregion show\n',
    );
    writeFileSync(
      join(dir, 'page.md'),
      [
        '```ts',
        'loose();',
        '```',
        '```sh fragment',
        'npm test',
        '```',
        '```ts file=ex.ts region=show',
        'console.log(a);',
        '```',
        '```ts file=ex.ts',
        'const a = 2;',
        '```',
        '```ts file=ex.ts region=gone',
        '```',
        '',
      ].join('\n'),
    );
    expect(blockProblems(dir, join(dir, 'page.md'))).toEqual([
      'page.md:1: neither embedded (file=) nor marked as a fragment',
      'page.md:10: differs from ex.ts (npm run docs:embed)',
      'page.md:13: no region gone in ex.ts',
    ]);
  });

  it('npm run docs:embed rewrites embedded blocks from their files, and leaves the rest', () => {
    const dir = plantedFolder();
    writeFileSync(join(dir, 'ex.ts'), 'one();\n// #region r\n  two();\n// #endregion r\n');
    const page = [
      'Text.',
      '```ts file=ex.ts',
      'stale();',
      '```',
      '```ts file=ex.ts region=r',
      '```',
      '```text fragment',
      'kept',
      '```',
      '',
    ].join('\n');
    const embedded = embedAll(dir, page);
    expect(embedded).toBe(
      [
        'Text.',
        '```ts file=ex.ts',
        'one();',
        '// #region r',
        '  two();',
        '// #endregion r',
        '```',
        '```ts file=ex.ts region=r',
        '  two();',
        '```',
        '```text fragment',
        'kept',
        '```',
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'page.md'), embedded);
    expect(blockProblems(dir, join(dir, 'page.md'))).toEqual([]);
  });
});

describe('links from the README and the guide', () => {
  it('every relative link leads to a file, and every anchor to a heading there', () => {
    const files = [README, join(GUIDE, 'README.md'), ...pages().map((p) => join(GUIDE, p))];
    expect(files.flatMap((f) => brokenLinks(ROOT, f))).toEqual([]);
  });

  it('a link to a missing page or anchor fails; code, web links and good anchors pass', () => {
    const dir = plantedFolder();
    writeFileSync(
      join(dir, 'other.md'),
      '# Other page\n\n## Options that matter\n\n## `query()` and hosts\n\n## Options that matter\n',
    );
    writeFileSync(
      join(dir, 'page.md'),
      [
        '# Page',
        '',
        'See [other](other.md), [its options](other.md#options-that-matter) and',
        '[the second](other.md#options-that-matter-1), [query](other.md#query-and-hosts),',
        '[top](#page), [the web](https://example.com/x.md) and `[code](nowhere.md)`.',
        'Broken: [gone](missing.md), [no anchor](other.md#no-such-heading), [here](#nope).',
        '',
        '```md fragment',
        '[in a block](nowhere.md)',
        '```',
        '',
        '[ref]: gone-too.md',
        '',
      ].join('\n'),
    );
    expect(brokenLinks(dir, join(dir, 'page.md'))).toEqual([
      'page.md:6: missing.md',
      'page.md:6: other.md#no-such-heading',
      'page.md:6: #nope',
      'page.md:12: gone-too.md',
    ]);
  });

  it('anchors are GitHub slugs', () => {
    expect(slug('Sessions, stores and `resume()`')).toBe('sessions-stores-and-resume');
    expect(slug('What the model reads: [results](x.md)')).toBe('what-the-model-reads-results');
    expect(slug('MCP servers (stdio, HTTP)')).toBe('mcp-servers-stdio-http');
  });
});

describe("the guide's table of contents (docs/guide/README.md)", () => {
  const toc = () => section(read(join(GUIDE, 'README.md')), 'Contents');
  const linked = () => [...toc().matchAll(/\]\(([^)#]+\.md)\)/g)].map((m) => m[1]!);

  it('links every page present under docs/guide/, in reading order', () => {
    expect([...linked()].sort()).toEqual(pages());
    const order = linked().map((p) => PAGE_ORDER.indexOf(p));
    expect(order, 'a page missing from PAGE_ORDER').not.toContain(-1);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // every capability of the reading order has its page
    expect(pages()).toEqual([...PAGE_ORDER].sort());
  });

  it('names a page of the guide for every entry point of the package', () => {
    const pkg = JSON.parse(read(join(ROOT, 'package.json'))) as {
      exports: Record<string, unknown>;
    };
    const subpaths = Object.keys(pkg.exports)
      .filter((s) => s !== './package.json')
      .map((s) => `muster-agent${s === '.' ? '' : s.slice(1)}`);
    const table = section(read(join(GUIDE, 'README.md')), 'Entry points');
    const rows = new Map(
      [
        ...table.matchAll(/^\| `(muster-agent[^`]*)` +\| +(?:\[[^\]]*\]\(([^)]+)\)|`([^`]+)`)/gm),
      ].map((m) => [m[1]!, (m[2] ?? m[3])!]),
    );
    expect([...rows.keys()].sort()).toEqual(subpaths.sort());
    for (const [entry, page] of rows) {
      expect(PAGE_ORDER, `${entry}: ${page}`).toContain(page);
      expect(pages(), `${entry}: ${page}`).toContain(page);
      expect(linked(), `${entry}: ${page}`).toContain(page);
    }
  });
});

describe("the README's first screen", () => {
  const firstScreen = () => {
    const text = read(README);
    return text.slice(0, text.indexOf('\n## ') + 1);
  };

  it('is at most 40 lines: everything above the first second-level heading', () => {
    const lines = firstScreen().split('\n').length - 1;
    expect(lines).toBeGreaterThan(10);
    expect(lines).toBeLessThanOrEqual(40);
  });

  it('shows one example, embedded from a file that npm run examples runs', () => {
    const blocks = codeBlocks(firstScreen()).filter((b) => b.info.startsWith('ts'));
    expect(blocks).toHaveLength(1);
    const embed = embedding(blocks[0]!.info);
    expect(embed?.file).toBeDefined();
    expect(listExamples()).toContain(join(ROOT, embed!.file));
    expect(blockProblems(ROOT, README).filter((p) => p.includes('differs'))).toEqual([]);
  });

  it('links to the guide', () => {
    expect(firstScreen()).toContain('](docs/guide/README.md)');
  });
});

describe('writing a store of your own (sessions.md)', () => {
  it('names every field of a SessionPatch, each of which the store must keep', () => {
    const page = readFileSync(join(GUIDE, 'sessions.md'), 'utf8');
    const section = page.split('\n## Writing a store of your own\n')[1]?.split('\n## ')[0] ?? '';
    const missing = Object.keys(UNCHANGED).filter((field) => !section.includes(`\`${field}\``));
    expect(missing).toEqual([]);
  });
});
