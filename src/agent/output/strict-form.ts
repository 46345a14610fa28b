/** A JSON Schema node as the transform reads it. */
export type SchemaNode = Record<string, unknown>;
type Node = SchemaNode;

/**
 * A host's output schema as Muster sends it to the model, and how to read an answer back.
 * - `strict`: the schema was rewritten into the form vendors' strict modes accept (OpenAI
 *   strict `json_schema`; Anthropic's structured outputs take a subset of it): every object
 *   lists all its properties as required, an optional one made nullable, with
 *   `additionalProperties: false`; a record (`additionalProperties` with a schema) becomes an
 *   array of `{ key, value }` entries; `oneOf` becomes `anyOf`; constraints strict modes do
 *   not take (`minLength`, `default`, ...) move into the description (the host's schema still
 *   enforces them when the answer is validated).
 * - `wrapped`: the sent root is `{ value }` because the schema's root is not an object.
 * A schema that cannot be made strict (`allOf`, `not`, tuples, an object with both properties
 * and a record part, an untyped node) is sent as it is (`strict: false`), wrapped if needed.
 */
export interface StrictForm {
  /** The JSON Schema sent to the model. */
  readonly schema: Node;
  readonly strict: boolean;
  readonly wrapped: boolean;
}

/** Keywords a strict node may keep as they are. */
const KEPT = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/** Keywords handled by the transform itself. */
const STRUCTURAL = new Set([
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'anyOf',
  'oneOf',
  '$ref',
  '$defs',
  '$schema',
]);

/** Keywords with no strict equivalent: their presence sends the schema as it is. */
const UNSTRICTABLE = new Set([
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentSchemas',
  'dependentRequired',
  'unevaluatedProperties',
  'unevaluatedItems',
  'prefixItems',
  'contains',
  'definitions',
]);

class NotStrictable extends Error {}

/** The form `schema` is sent in (see {@link StrictForm}). */
export function strictForm(schema: Node): StrictForm {
  const { $schema: _dialect, ...original } = schema;
  let sent: Node;
  let strict = true;
  try {
    sent = toStrict(original, true);
  } catch (err) {
    if (!(err instanceof NotStrictable)) throw err;
    sent = original;
    strict = false;
  }
  if (sent.type === 'object') return { schema: sent, strict, wrapped: false };
  const { $defs, ...inner } = sent;
  return {
    schema: {
      type: 'object',
      properties: { value: inner },
      required: ['value'],
      additionalProperties: false,
      ...($defs !== undefined ? { $defs } : {}),
    },
    strict,
    wrapped: true,
  };
}

function toStrict(node: unknown, root = false): Node {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) throw new NotStrictable();
  const n = node as Node;
  for (const key of Object.keys(n)) if (UNSTRICTABLE.has(key)) throw new NotStrictable();
  const out: Node = {};
  const moved: Node = {};
  for (const [key, value] of Object.entries(n)) {
    if (KEPT.has(key)) out[key] = value;
    else if (!STRUCTURAL.has(key)) moved[key] = value;
  }
  if (root && n.$defs !== undefined) {
    const defs: Node = {};
    for (const [name, def] of Object.entries(n.$defs as Node)) defs[name] = toStrict(def);
    out.$defs = defs;
  } else if (n.$defs !== undefined) throw new NotStrictable();
  if (typeof n.$ref === 'string') {
    if (!n.$ref.startsWith('#/$defs/')) throw new NotStrictable();
    out.$ref = n.$ref;
  }
  const union = (n.anyOf ?? n.oneOf) as unknown;
  if (union !== undefined) {
    if (!Array.isArray(union) || union.length === 0) throw new NotStrictable();
    out.anyOf = union.map((branch) => toStrict(branch));
  }
  if (isRecord(n)) return withMoved(recordEntries(n, out), moved);
  const types = typesOf(n);
  if (types.includes('object')) objectPart(n, out);
  else if (n.properties !== undefined || n.additionalProperties !== undefined)
    throw new NotStrictable();
  if (types.includes('array')) {
    if (n.items === undefined) throw new NotStrictable();
    out.items = toStrict(n.items);
  } else if (n.items !== undefined) throw new NotStrictable();
  if (
    out.type === undefined &&
    out.anyOf === undefined &&
    out.$ref === undefined &&
    out.enum === undefined &&
    out.const === undefined
  )
    throw new NotStrictable();
  return withMoved(out, moved);
}

/** Sets the object keywords of `out`: every property required, optional ones nullable. */
function objectPart(n: Node, out: Node): void {
  const extra = n.additionalProperties;
  if (extra !== undefined && extra !== false && !isEmptyObject(n.properties))
    throw new NotStrictable();
  // an open object (no properties, no record part) would be closed to `{}` by strict mode
  if (n.properties === undefined) throw new NotStrictable();
  const props = n.properties as Node;
  const required = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
  const properties: Node = {};
  for (const [key, prop] of Object.entries(props)) {
    const strictProp = toStrict(prop);
    properties[key] = required.has(key) ? strictProp : nullable(strictProp);
  }
  out.properties = properties;
  out.required = Object.keys(props);
  out.additionalProperties = false;
}

/** A record (`additionalProperties` with a schema, no properties) as an array of entries. */
function recordEntries(n: Node, out: Node): Node {
  const keySchema = n.propertyNames !== undefined ? toStrict(n.propertyNames) : { type: 'string' };
  const entries: Node = {
    type: 'array',
    items: {
      type: 'object',
      properties: { key: keySchema, value: toStrict(n.additionalProperties) },
      required: ['key', 'value'],
      additionalProperties: false,
    },
  };
  if (out.description !== undefined) entries.description = out.description;
  if (out.title !== undefined) entries.title = out.title;
  return entries;
}

/** True for a record: an object schema with an `additionalProperties` schema and no properties. */
export function isRecord(n: Node): boolean {
  const extra = n.additionalProperties;
  return (
    typesOf(n).includes('object') &&
    typeof extra === 'object' &&
    extra !== null &&
    isEmptyObject(n.properties)
  );
}

function isEmptyObject(value: unknown): boolean {
  return value === undefined || (typeof value === 'object' && Object.keys(value!).length === 0);
}

/** The JSON types a node allows (`object` for one with properties and no type). */
export function typesOf(n: Node): readonly string[] {
  if (typeof n.type === 'string') return [n.type];
  if (Array.isArray(n.type)) return n.type as string[];
  return n.properties !== undefined ? ['object'] : [];
}

/** `s` or null: a type list gains `null`, anything else becomes `anyOf: [s, null]`. */
function nullable(s: Node): Node {
  if (acceptsNullShallow(s)) return s;
  if (s.enum === undefined && s.const === undefined && s.anyOf === undefined) {
    if (typeof s.type === 'string') return { ...s, type: [s.type, 'null'] };
    if (Array.isArray(s.type)) return { ...s, type: [...(s.type as string[]), 'null'] };
  }
  return { anyOf: [s, { type: 'null' }] };
}

/** Whether a node itself (not through `$ref`) accepts `null`. */
export function acceptsNullShallow(s: Node): boolean {
  return (
    s.type === 'null' ||
    (Array.isArray(s.type) && s.type.includes('null')) ||
    s.const === null ||
    (Array.isArray(s.enum) && s.enum.includes(null)) ||
    (Array.isArray(s.anyOf) && (s.anyOf as Node[]).some(acceptsNullShallow))
  );
}

/** Constraints a strict mode does not take, appended to the description as `{key: value}`. */
function withMoved(out: Node, moved: Node): Node {
  const keys = Object.keys(moved);
  if (keys.length === 0) return out;
  const note = `{${keys.map((k) => `${k}: ${JSON.stringify(moved[k])}`).join(', ')}}`;
  const description = typeof out.description === 'string' ? `${out.description}\n\n${note}` : note;
  return { ...out, description };
}
