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
