import { MusterError } from '../errors/index.js';

/**
 * Loads a provider entry (`load`, a dynamic `import()` of `muster-agent/openai` and the like)
 * whose vendor SDK, `pkg`, is an optional peer. When the SDK is not installed (the import
 * fails with `ERR_MODULE_NOT_FOUND` or `MODULE_NOT_FOUND`, typed facts, never the message
 * text) it fails with `INVALID_CONFIGURATION` (exit 2) giving the `npm i` line; the error is
 * the `cause`. Any other failure is thrown as it is.
 *
 * @throws MusterError `INVALID_CONFIGURATION` with `details.package` naming the SDK.
 */
export async function importVendor<T>(
  pkg: string,
  model: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const code = (err as { code?: unknown } | null | undefined)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw err;
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `--model ${model} needs the package ${pkg}, which is not installed: npm i ${pkg} (npm i -g ${pkg} next to a global install of muster-agent-cli).`,
      { cause: err, details: { package: pkg } },
    );
  }
}
