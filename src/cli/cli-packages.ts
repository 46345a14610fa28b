import { fileURLToPath } from 'node:url';
import { MusterError } from '../errors/index.js';
import { missingPackages } from '../util/index.js';

/**
 * The packages the `muster` command and the studio import, which `npm i muster-agent` leaves
 * out: optional peers of the library, dependencies of `muster-agent-cli` (the package that
 * ships the command).
 */
export const CLI_PACKAGES = [
  'commander',
  '@inquirer/prompts',
  'ora',
  'hono',
  '@hono/node-server',
] as const;

/**
 * Checks, before the command loads any of them, that {@link CLI_PACKAGES} are installed where
 * the library's modules find them, as they are when the command was installed as
 * `muster-agent-cli`: a `node_modules/<name>` folder in `from` (default this module's folder)
 * or one of its parents, the folders Node.js searches for a package. Nothing is imported or
 * resolved through the module loader, so `muster --version` still loads none of them.
 *
 * @throws MusterError `INVALID_CONFIGURATION` naming the missing packages and the command to
 *   install instead (`npm i -g muster-agent-cli`); `details.packages` lists them.
 */
export function checkCliPackages(
  from: string = fileURLToPath(new URL('.', import.meta.url)),
): void {
  const missing = missingPackages(CLI_PACKAGES, from);
  if (missing.length === 0) return;
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `The muster command needs ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not installed: muster-agent is the library alone. Install the command with npm i -g muster-agent-cli (then run muster), or run it without installing: npx muster-agent-cli <command>.`,
    { details: { packages: missing } },
  );
}
