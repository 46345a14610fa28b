/** Where the build stamp lives under `root`. */
export function stampPath(root: string): string;
/** A hash of everything the build reads (sources, configs, compiler and bundler versions). */
export function sourceKey(root: string): string;
/** True when `root/dist` is a finished build of the sources as they are now. */
export function distIsCurrent(root: string): boolean;
