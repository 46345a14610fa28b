/**
 * Copies of the official client's package with patches applied, under the system temp
 * folder. node_modules is never written: the copy is what the resolve hook
 * (`resolve-hooks.mjs`) hands to a measurement process in place of the installed package.
 */
import {
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { UpstreamPatch } from './patches.js';

const require = createRequire(import.meta.url);

/** The installed client package's folder (the one with its package.json), as a real path. */
export function installedClientDir(): string {
  // the package does not export ./package.json: go up from its entry point (dist/index.cjs)
  return realpathSync(dirname(dirname(require.resolve('@modelcontextprotocol/client'))));
}

/** A patched (or, with no patches, plain) copy of the client package. */
export interface PatchedClient {
  /** The copy's package folder: `<root>/node_modules/@modelcontextprotocol/client`. */
  readonly dir: string;
  /** Removes the copy. */
  remove(): void;
}

/** Occurrences of `needle` in `text`. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count++;
  return count;
}

/** The one file of `dir` that `glob` (`*` as the only wildcard) names. */
function matchOne(dir: string, glob: string): string {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  const pattern = new RegExp(`^${escaped}$`);
  const found = readdirSync(dir).filter((name) => pattern.test(name));
  if (found.length !== 1) {
    throw new Error(
      `upstream: '${glob}' matches ${found.length} files in ${dir}: ${found.join(', ')}`,
    );
  }
  return join(dir, found[0] as string);
}

/**
 * Applies `patches` in order to the client package in `dir` (its `dist/`). Every `find` must
 * occur exactly once in its file at the moment it is applied; otherwise this throws, naming
 * the patch and the edit.
 */
export function applyPatches(dir: string, patches: readonly UpstreamPatch[]): void {
  for (const patch of patches) {
    const file = matchOne(join(dir, 'dist'), patch.file);
    let text = readFileSync(file, 'utf8');
    patch.edits.forEach((edit, index) => {
      const count = occurrences(text, edit.find);
      if (count !== 1) {
        const head = edit.find.split('\n').find((line) => line.trim() !== '') ?? '';
        throw new Error(
          `upstream: patch '${patch.id}' edit ${index + 1}: found ${count} times (must be once) in ${file}: ${head.trim()}`,
        );
      }
      text = text.replace(edit.find, () => edit.replace);
    });
    writeFileSync(file, text);
  }
}

/**
 * Copies the installed client package to a new folder under the system temp folder and
 * applies `patches` (none: a plain copy, the baseline).
 */
export function patchedClient(patches: readonly UpstreamPatch[]): PatchedClient {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'muster-upstream-')));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    const dir = join(root, 'node_modules', '@modelcontextprotocol', 'client');
    cpSync(installedClientDir(), dir, {
      recursive: true,
      // the maps and type files are not loaded
      filter: (source) => !source.endsWith('.map') && !/\.d\.[cm]?ts$/.test(source),
    });
    applyPatches(dir, patches);
    return { dir, remove };
  } catch (err) {
    remove();
    throw err;
  }
}
