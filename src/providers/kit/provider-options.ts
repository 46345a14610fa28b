import { MusterError } from '../../errors/index.js';
import type { ModelProviderOptions } from '../../model/index.js';

/**
 * Merges the `providerOptions` entry of one provider id into a request body. An entry may add
 * any field except one in `reserved` (the fields the request structure owns: model, messages,
 * tools, streaming) or one the body already holds (a field a neutral request option set).
 * Either fails with `INVALID_CONFIGURATION`, so an option is never dropped silently and can
 * never rewrite the conversation. Entries whose value is `undefined` are skipped.
 */
export function mergeProviderOptions<Body extends object>(
  body: Body,
  options: ModelProviderOptions | undefined,
  providerId: string,
  reserved: readonly string[],
  provider: string,
): Body {
  const entry = options?.[providerId];
  if (entry === undefined) return body;
  const merged: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [key, value] of Object.entries(entry)) {
    if (value === undefined) continue;
    if (reserved.includes(key) || Object.hasOwn(merged, key)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `providerOptions.${providerId}.${key} cannot be set on a ${provider} request: ${
          reserved.includes(key)
            ? 'the request itself owns it'
            : 'a request option already sets it; drop one of the two'
        }.`,
        { details: { provider, providerId, option: key } },
      );
    }
    merged[key] = value;
  }
  return merged as Body;
}

/**
 * Refuses, when a request asks for a typed final answer, a `providerOptions` entry that would
 * set a field the answer's format owns. `fields` are paths into an entry (`output_config.format`
 * reads `entry.output_config.format`); `providerIds` names the entries read, or `'all'` for
 * every entry. A field set (to anything but `undefined`) fails with `INVALID_CONFIGURATION`
 * naming it, so the format of the answer comes from `run({ output })` alone.
 */
export function refuseOutputOverrides(
  options: ModelProviderOptions | undefined,
  providerIds: readonly string[] | 'all',
  fields: readonly string[],
  provider: string,
): void {
  for (const [providerId, entry] of Object.entries(options ?? {})) {
    if (providerIds !== 'all' && !providerIds.includes(providerId)) continue;
    const field = fields.find((path) => valueAt(entry, path) !== undefined);
    if (field === undefined) continue;
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `providerOptions.${providerId}.${field} cannot be set on a ${provider} request that asks for a typed answer: the answer's format comes from run({ output }); drop the option and set output instead.`,
      { details: { provider, providerId, option: field } },
    );
  }
}

function valueAt(entry: unknown, path: string): unknown {
  let value = entry;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
