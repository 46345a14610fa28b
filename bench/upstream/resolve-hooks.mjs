// Module resolve hooks (registered by register-hooks.mjs) that hand a process copies of the
// official client instead of the installed one.
//
// Each copy has a tag. A module imported with `?upstream=<tag>` starts a module graph of its
// own: in it, `@modelcontextprotocol/client` and its subpaths (`/stdio`, `/_shims`, ...)
// resolve inside that tag's copy, and every file under a tagged root (the copies, Muster's
// dist/, bench/upstream/) gets the same `?upstream=<tag>`, so each tag has its own instance of
// those modules. Everything else (zod, @modelcontextprotocol/core, Node's modules, ...) is
// one instance for all: the copies' own bare imports resolve as they would from the
// installed package. Untagged imports get the `single` copy when there is one (used when a
// whole process, e.g. a test run, takes one patched client), with a file of the installed
// package imported by its path swapped for the copy's too (a test runner resolves bare
// imports itself, then imports the file).

import { URL } from 'node:url';

/**
 * @typedef {object} HookData
 * @property {string} original file URL of the installed package folder, with a trailing slash
 * @property {Record<string, string>} copies per tag, file URL of the copy's package folder, with a trailing slash
 * @property {string[]} taggedRoots file URLs of folders whose files take their importer's tag
 */

/** @type {HookData} */
let data = { original: '', copies: {}, taggedRoots: [] };

/** @param {HookData} initial */
export function initialize(initial) {
  data = initial;
}

const CLIENT = '@modelcontextprotocol/client';
const SINGLE = 'single';

/** @param {string} specifier */
function isBare(specifier) {
  return !/^[./#]/.test(specifier) && !/^[a-z][a-z0-9+.-]*:/i.test(specifier);
}

/** @param {string | undefined} url */
function tagOf(url) {
  if (url === undefined || !url.startsWith('file:')) return undefined;
  return new URL(url).searchParams.get('upstream') ?? undefined;
}

/** @param {string} url @param {string | undefined} tag */
function tagged(url, tag) {
  if (tag === undefined || !url.startsWith('file:') || url.includes('?')) return url;
  if (!data.taggedRoots.some((root) => url.startsWith(root))) return url;
  return `${url}?upstream=${encodeURIComponent(tag)}`;
}

/** @param {string} url */
function insideCopy(url) {
  return Object.values(data.copies).find((dir) => url.startsWith(dir));
}

/**
 * @param {string} specifier
 * @param {{ parentURL?: string, conditions: string[], importAttributes: Record<string, string> }} context
 * @param {(specifier: string, context?: object) => Promise<{ url: string, format?: string | null }>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  const parentTag = tagOf(parent);
  const tag = parentTag ?? (data.copies[SINGLE] === undefined ? undefined : SINGLE);
  if (specifier === CLIENT || specifier.startsWith(`${CLIENT}/`)) {
    const copy = tag === undefined ? undefined : data.copies[tag];
    if (copy === undefined) return nextResolve(specifier, context);
    const found = await nextResolve(specifier, {
      ...context,
      parentURL: new URL('../../resolve-from.mjs', copy).href,
    });
    return { ...found, url: tagged(found.url, parentTag) };
  }
  const copyOfParent = parent === undefined ? undefined : insideCopy(parent);
  if (parent !== undefined && copyOfParent !== undefined && isBare(specifier)) {
    const rest = parent.slice(copyOfParent.length).replace(/\?.*$/, '');
    return nextResolve(specifier, { ...context, parentURL: data.original + rest });
  }
  const found = await nextResolve(specifier, context);
  if (parentTag !== undefined) return { ...found, url: tagged(found.url, parentTag) };
  const single = data.copies[SINGLE];
  if (single !== undefined && found.url.startsWith(data.original)) {
    return { ...found, url: single + found.url.slice(data.original.length) };
  }
  return found;
}
