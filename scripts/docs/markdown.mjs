// What the docs checks read in Markdown: fenced code blocks (embedded from an example file, or
// marked as fragments), relative links and the anchors GitHub gives headings. Used by
// scripts/embed-examples.mjs and the tests under test/docs/.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The fenced code blocks of `markdown`: `info` (the text after the opening fence), `body` (the
 * lines between the fences, joined with `\n`, with a final newline when not empty), and the
 * 0-based line numbers of the opening and closing fences.
 */
export function codeBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    let end = i + 1;
    while (end < lines.length && !closes(lines[end], fence)) end++;
    const body = lines.slice(i + 1, end);
    blocks.push({
      info: open[2].trim(),
      body: body.length > 0 ? `${body.join('\n')}\n` : '',
      open: i,
      close: end,
    });
    i = end;
  }
  return blocks;
}

function closes(line, fence) {
  const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return m !== null && m[1][0] === fence[0] && m[1].length >= fence.length;
}

/** `{ file, region? }` of an info string with `file=` (an embedded block), else undefined. */
export function embedding(info) {
  const file = /(?:^|\s)file=(\S+)/.exec(info)?.[1];
  if (!file) return undefined;
  const region = /(?:^|\s)region=(\S+)/.exec(info)?.[1];
  return region ? { file, region } : { file };
}

/** Whether an info string marks its block as a fragment. */
export function isFragment(info) {
  return /(?:^|\s)fragment(?:\s|$)/.test(info);
}

/**
 * What an embedded block must hold: the file (relative to `root`) whole, or the lines between
 * `// #region <region>` and `// #endregion <region>` (the marker lines left out, indentation
 * kept). Throws when the file or the region is missing.
 */
export function embeddedText(root, file, region) {
  const path = resolve(root, file);
  if (!existsSync(path)) throw new Error(`no such file: ${file}`);
  const text = readFileSync(path, 'utf8');
  if (!region) return text;
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === `// #region ${region}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${region}`);
  if (start < 0 || end < 0) throw new Error(`no region ${region} in ${file}`);
  const body = lines.slice(start + 1, end);
  return body.length > 0 ? `${body.join('\n')}\n` : '';
}

/**
 * The code blocks of the Markdown file `path` that break the rule (embedded with the file's
 * text, or marked as a fragment), each as `<path>:<line>: <why>`; paths relative to `root`.
 */
export function blockProblems(root, path) {
  const name = relative(root, path);
  const problems = [];
  for (const block of codeBlocks(readFileSync(path, 'utf8'))) {
    const at = `${name}:${block.open + 1}`;
    const embed = embedding(block.info);
    if (!embed) {
      if (!isFragment(block.info))
        problems.push(`${at}: neither embedded (file=) nor marked as a fragment`);
      continue;
    }
    let expected;
    try {
      expected = embeddedText(root, embed.file, embed.region);
    } catch (err) {
      problems.push(`${at}: ${err.message}`);
      continue;
    }
    if (expected !== block.body)
      problems.push(
        `${at}: differs from ${embed.file}${embed.region ? ` region ${embed.region}` : ''} (npm run docs:embed)`,
      );
  }
  return problems;
}

/**
 * `markdown` with every embedded block's body replaced by its file's text (or region); throws
 * when a file or region is missing.
 */
export function embedAll(root, markdown) {
  const lines = markdown.split('\n');
  // from the last block up, so that earlier line numbers stay true
  for (const block of codeBlocks(markdown).reverse()) {
    const embed = embedding(block.info);
    if (!embed) continue;
    const text = embeddedText(root, embed.file, embed.region);
    const body = text === '' ? [] : text.replace(/\n$/, '').split('\n');
    lines.splice(block.open + 1, block.close - block.open - 1, ...body);
  }
  return lines.join('\n');
}

/** The anchor GitHub gives a heading's text (before numbering repeats). */
export function slug(heading) {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings, as GitHub numbers repeats (`x`, `x-1`, ...). */
export function anchors(markdown) {
  const seen = new Map();
  const result = new Set();
  const inCode = codeLines(markdown);
  markdown.split('\n').forEach((line, i) => {
    if (inCode.has(i)) return;
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) return;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  });
  return result;
}

function codeLines(markdown) {
  const lines = new Set();
  for (const b of codeBlocks(markdown)) for (let i = b.open; i <= b.close; i++) lines.add(i);
  return lines;
}

/** The link targets of a Markdown text (inline links and reference definitions), code left out. */
export function linkTargets(markdown) {
  const inCode = codeLines(markdown);
  const targets = [];
  markdown.split('\n').forEach((line, i) => {
    if (inCode.has(i)) return;
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      targets.push({ target: m[1], line: i + 1 });
    const def = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(text);
    if (def) targets.push({ target: def[1], line: i + 1 });
  });
  return targets;
}

/**
 * The relative links of the Markdown file `path` that lead nowhere: to a missing file, or to
 * an anchor its target's headings do not have. Each as `<path>:<line>: <target>`; paths
 * relative to `root`. Links with a scheme (`https:`, `mailto:`) are left alone.
 */
export function brokenLinks(root, path) {
  const markdown = readFileSync(path, 'utf8');
  const broken = [];
  for (const { target, line } of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [file, anchor] = splitAnchor(decodeURI(target));
    const resolved = file === '' ? path : join(dirname(path), file);
    let ok = existsSync(resolved);
    if (ok && anchor !== undefined) {
      ok =
        statSync(resolved).isFile() &&
        resolved.endsWith('.md') &&
        anchors(readFileSync(resolved, 'utf8')).has(anchor.toLowerCase());
    }
    if (!ok) broken.push(`${relative(root, path)}:${line}: ${target}`);
  }
  return broken;
}

function splitAnchor(target) {
  const hash = target.indexOf('#');
  return hash < 0 ? [target, undefined] : [target.slice(0, hash), target.slice(hash + 1)];
}
