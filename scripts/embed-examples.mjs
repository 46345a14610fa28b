#!/usr/bin/env node
// Rewrites every embedded code block of README.md and docs/guide/*.md (info string
// `ts file=examples/<name>.ts`, optionally ` region=<r>`) from its file, so that what a page
// shows is what `npm run examples` runs.
//
//   npm run docs:embed              (rewrite)
//   npm run docs:embed -- --check   (change nothing; exit 1 naming each block that differs)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import process from 'node:process';
import { blockProblems, embedAll } from './docs/markdown.mjs';

const ROOT = resolve(import.meta.dirname, '..');

/** The Markdown files whose blocks are embedded: the README and the guide's pages. */
export function embeddingFiles(root = ROOT) {
  const guide = join(root, 'docs/guide');
  return [
    join(root, 'README.md'),
    ...readdirSync(guide)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => join(guide, f)),
  ];
}

const check = process.argv.includes('--check');
let stale = 0;
for (const file of embeddingFiles()) {
  const before = readFileSync(file, 'utf8');
  const after = embedAll(ROOT, before);
  if (after === before) continue;
  if (check) {
    for (const p of blockProblems(ROOT, file).filter((p) => p.includes('differs from')))
      process.stdout.write(`${p}\n`);
    stale++;
  } else {
    writeFileSync(file, after);
    process.stdout.write(`embedded: ${relative(ROOT, file)}\n`);
  }
}
if (check && stale > 0) process.exitCode = 1;
