/** Bundles `entry` and the repository sources it imports into one ES module at `outfile`. */
export function bundleScript(entry: string, outfile: string): Promise<void>;
