import { createHash } from 'node:crypto';
import type { CatalogEntry } from './tool-catalog.js';

/**
 * The fingerprint an approval is bound to (SPEC 15.1): sha-256 (hex) of the call's arguments
 * after hooks, the tool's definition as the model saw it (name, description, schemas,
 * annotations, where it comes from) and the policy's version. Objects are hashed with their
 * keys sorted, so the same call hashes the same in every process.
 */
export function callFingerprint(
  entry: CatalogEntry,
  args: Readonly<Record<string, unknown>>,
  policyVersion: string,
): string {
  const tool = {
    name: entry.name,
    description: entry.description,
    inputSchema: entry.inputSchema,
    outputSchema: entry.outputSchema ?? null,
    annotations: entry.annotations ?? null,
    source: entry.info.source,
    server: entry.info.server ?? null,
    originalName: entry.info.originalName ?? null,
  };
  return createHash('sha256')
    .update(canonicalJson({ arguments: args, tool, policy: policyVersion }))
    .digest('hex');
}

/** Text written as it is (punctuation), told apart from data strings on the stack. */
class Raw {
  constructor(readonly text: string) {}
}

/** JSON with object keys sorted at every level; iterative, so deep values cannot overflow. */
function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  const pushAll = (parts: unknown[]) => {
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]);
  };
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Raw) out.push(item.text);
    else if (item === null || typeof item !== 'object') out.push(JSON.stringify(item ?? null));
    else if (Array.isArray(item)) {
      const parts: unknown[] = [new Raw('[')];
      item.forEach((v, i) => parts.push(...(i > 0 ? [new Raw(',')] : []), v));
      pushAll([...parts, new Raw(']')]);
    } else {
      const record = item as Record<string, unknown>;
      const parts: unknown[] = [new Raw('{')];
      Object.keys(record)
        .sort()
        .forEach((k, i) =>
          parts.push(new Raw(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`), record[k]),
        );
      pushAll([...parts, new Raw('}')]);
    }
  }
  return out.join('');
}
