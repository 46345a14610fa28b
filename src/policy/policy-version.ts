import { createHash } from 'node:crypto';
import type { AuthorizationRule, PolicyOptions } from './policy-types.js';

/** A hash of what the policy decides from: patterns, default, `park` and the rule ids. */
export function dataVersion(options: PolicyOptions, rules: readonly AuthorizationRule[]): string {
  const data = {
    visibleTools: options.visibleTools ?? null,
    deny: options.deny ?? [],
    allow: options.allow ?? [],
    default: options.default ?? 'ask',
    park: options.park === true,
    rules: rules.map((r) => r.id),
  };
  return createHash('sha256').update(JSON.stringify(data)).digest('hex').slice(0, 32);
}
