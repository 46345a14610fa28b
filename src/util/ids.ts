import { randomUUID } from 'node:crypto';

/** A new random identifier with a readable prefix, e.g. `run_…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID()}`;
}
