/** Entry points beyond `exports`, under `dist/`, that this repository loads by path. */
export const INTERNAL_ENTRIES: readonly string[];
/** The package's JS entry points (`exports` import targets and `bin`), as paths under `dist/`. */
export function entryFiles(pkg: { exports?: unknown; bin?: unknown }): string[];
/**
 * Bundles the entry points of the package in `packageDir` (after `tsc`), and `internal` ones
 * (paths under `dist/`, default {@link INTERNAL_ENTRIES}), and replaces `tsc`'s `.js` files in
 * its `dist/` with the bundles and their chunks.
 */
export function bundleEntries(
  packageDir: string,
  internal?: readonly string[],
): Promise<{ entries: string[]; files: string[] }>;
