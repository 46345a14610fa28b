import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Which of `names` are not installed where a module in the folder `from` would find them: a
 * `node_modules/<name>/package.json` in `from` or one of its parents, the folders Node.js
 * searches for a package. Nothing is imported or resolved through the module loader, so a
 * check costs no module load and fails no import.
 */
export function missingPackages(names: readonly string[], from: string): string[] {
  return names.filter((name) => !installedFrom(from, name));
}

function installedFrom(from: string, name: string): boolean {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true;
    if (dirname(dir) === dir) return false;
  }
}
