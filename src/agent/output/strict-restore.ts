import { acceptsNullShallow, isRecord, typesOf } from './strict-form.js';
import type { SchemaNode as Node, StrictForm } from './strict-form.js';

/**
 * Reads an answer in the sent form back into the host schema's form: unwraps `{ value }`,
 * turns entry arrays back into records, and drops the nulls the form introduced (a null for an
 * optional property whose own schema does not accept null). Anything it does not recognise is
 * left as it is, for the host's schema to judge.
 */
export function restoreAnswer(answer: unknown, original: Node, form: StrictForm): unknown {
  let value = answer;
  if (form.wrapped) {
    if (typeof value !== 'object' || value === null || !('value' in value)) return value;
    value = (value as { value: unknown }).value;
  }
  if (!form.strict) return value;
  return restore(value, original, original, 0);
}

/** Past this depth an answer is left as it is (the host's schema judges it; no deep recursion). */
const MAX_RESTORE_DEPTH = 128;

function restore(value: unknown, node: unknown, root: Node, depth: number): unknown {
  const n = resolve(node, root);
  if (n === undefined || depth > MAX_RESTORE_DEPTH) return value;
  const next = depth + 1;
  if (isRecord(n)) {
    if (!Array.isArray(value) || !value.every(isEntry)) return value;
    const record: Record<string, unknown> = {};
    for (const entry of value)
      record[String(entry.key)] = restore(entry.value, n.additionalProperties, root, next);
    return record;
  }
  const union = (n.anyOf ?? n.oneOf) as unknown;
  if (Array.isArray(union)) {
    const branch = union.find((b) => fits(value, resolve(b, root), root, depth));
    return branch === undefined ? value : restore(value, branch, root, next);
  }
  if (Array.isArray(value)) {
    return n.items === undefined ? value : value.map((item) => restore(item, n.items, root, next));
  }
  if (typeof value !== 'object' || value === null || n.properties === undefined) return value;
  const props = n.properties as Node;
  const required = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const prop = props[key];
    if (item === null && prop !== undefined && !required.has(key) && !acceptsNull(prop, root, 0))
      continue;
    out[key] = prop === undefined ? item : restore(item, prop, root, next);
  }
  return out;
}

/**
 * Whether `value` could be an answer for the union branch `n` (kind, keys, literals). Unions
 * inside unions are followed at most as deep as `restore` goes (a `$ref` may lead back).
 */
function fits(value: unknown, n: Node | undefined, root: Node, depth: number): boolean {
  if (n === undefined || depth > MAX_RESTORE_DEPTH) return false;
  if (isRecord(n)) return Array.isArray(value) && value.every(isEntry);
  const types = typesOf(n);
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (n.const !== undefined) return n.const === value;
  if (Array.isArray(n.enum)) return n.enum.includes(value);
  if (Array.isArray(n.anyOf ?? n.oneOf))
    return ((n.anyOf ?? n.oneOf) as unknown[]).some((b) =>
      fits(value, resolve(b, root), root, depth + 1),
    );
  if (types.length > 0 && !types.some((t) => t === kind || (t === 'integer' && kind === 'number')))
    return false;
  if (kind !== 'object' || n.properties === undefined) return true;
  const props = n.properties as Node;
  for (const [key, item] of Object.entries(value as object)) {
    const prop = resolve(props[key], root);
    if (prop === undefined) return false;
    if (item === null) continue;
    if (prop.const !== undefined && prop.const !== item) return false;
    if (Array.isArray(prop.enum) && !prop.enum.includes(item)) return false;
  }
  return true;
}

/** Whether a schema accepts `null`, through `$ref`s and unions (as deep as `restore` goes). */
function acceptsNull(node: unknown, root: Node, depth: number): boolean {
  const n = resolve(node, root);
  if (n === undefined || depth > MAX_RESTORE_DEPTH) return true;
  if (Object.keys(n).every((k) => k === 'description' || k === 'title')) return true;
  if (acceptsNullShallow(n)) return true;
  const union = (n.anyOf ?? n.oneOf) as unknown;
  return Array.isArray(union) && union.some((b) => acceptsNull(b, root, depth + 1));
}

/** `node` with a local `$ref` followed (`#/$defs/name`), or undefined when it is not a schema. */
function resolve(node: unknown, root: Node): Node | undefined {
  let n = node;
  for (let hops = 0; hops < 32; hops++) {
    if (typeof n !== 'object' || n === null || Array.isArray(n)) return undefined;
    const ref = (n as Node).$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return n as Node;
    n = (root.$defs as Node | undefined)?.[ref.slice('#/$defs/'.length)];
  }
  return undefined;
}

function isEntry(value: unknown): value is { key: unknown; value: unknown } {
  return typeof value === 'object' && value !== null && 'key' in value && 'value' in value;
}
