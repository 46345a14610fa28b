/**
 * The pure half of the schema form: the fields a JSON Schema asks for and their raw control
 * values (checked and converted by `schema-form-check.ts`).
 */

/** A JSON Schema object, as loosely as servers send them. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** How a field is edited. */
export type FieldKind =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'multi-enum'
  | 'json';

/** One choice of an enum field: the value sent, the label shown, the `<option>` value. */
export interface EnumOption {
  readonly value: unknown;
  readonly label: string;
  readonly key: string;
}

/** One control of the form. */
export interface FieldSpec {
  /** The property path, `parent.child` for nested objects. */
  readonly name: string;
  readonly path: readonly string[];
  readonly kind: FieldKind;
  readonly label: string;
  readonly description?: string;
  readonly required: boolean;
  readonly schema: JsonSchema;
  readonly options: readonly EnumOption[];
}

/** The raw control values, per field name: text for inputs and selects, booleans, lists. */
export type RawValues = Readonly<Record<string, string | boolean | readonly string[]>>;

/** The outcome of a check: the value to send, or messages per field name. */
export type FormCheck =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly errors: Readonly<Record<string, string>> };

/** A plain object (not null, not an array). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema's main type (`["string","null"]` → `string`). */
export function schemaType(schema: JsonSchema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type))
    return type.find((t): t is string => typeof t === 'string' && t !== 'null');
  if (isObject(schema.properties)) return 'object';
  return undefined;
}

/** The `<option>` value of an enum value: strings as they are, others as JSON. */
export function optionKey(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The choices of an enum schema (`enum`, `enum` + `enumNames`, or `oneOf`/`anyOf` of `const`). */
export function enumOptions(schema: JsonSchema): EnumOption[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => ({
      value,
      key: optionKey(value),
      label: typeof names[i] === 'string' ? (names[i] as string) : optionKey(value),
    }));
  }
  const alternatives = Array.isArray(schema.oneOf) ? schema.oneOf : schema.anyOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    const consts = alternatives.filter(
      (a): a is Record<string, unknown> => isObject(a) && 'const' in a,
    );
    if (consts.length === alternatives.length) {
      return consts.map((a) => ({
        value: a.const,
        key: optionKey(a.const),
        label: typeof a.title === 'string' ? a.title : optionKey(a.const),
      }));
    }
  }
  return undefined;
}

function fieldKind(schema: JsonSchema): { kind: FieldKind; options: EnumOption[] } {
  const options = enumOptions(schema);
  if (options) return { kind: 'enum', options };
  const type = schemaType(schema);
  if (type === 'array' && isObject(schema.items)) {
    const itemOptions = enumOptions(schema.items);
    if (itemOptions) return { kind: 'multi-enum', options: itemOptions };
  }
  switch (type) {
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
      return { kind: type, options: [] };
    case undefined:
      // no type at all: any JSON value
      return { kind: 'json', options: [] };
    default:
      return { kind: 'json', options: [] };
  }
}

/** How many levels of nested objects become `a.b.c` fields; deeper ones are one JSON field. */
const MAX_FIELD_DEPTH = 8;

/**
 * The fields of an object schema, nested objects with properties flattened to `a.b` (at most
 * {@link MAX_FIELD_DEPTH} levels: a server's schema may nest deeper, and its deeper objects are
 * edited as JSON).
 */
export function fieldsOf(
  schema: JsonSchema | undefined,
  parent: readonly string[] = [],
): FieldSpec[] {
  if (!schema || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields: FieldSpec[] = [];
  for (const [key, raw] of Object.entries(schema.properties)) {
    const child: JsonSchema = isObject(raw) ? raw : {};
    const path = [...parent, key];
    if (
      path.length < MAX_FIELD_DEPTH &&
      schemaType(child) === 'object' &&
      isObject(child.properties) &&
      !enumOptions(child)
    ) {
      fields.push(...fieldsOf(child, path));
      continue;
    }
    const { kind, options } = fieldKind(child);
    const description = typeof child.description === 'string' ? child.description : undefined;
    fields.push({
      name: path.join('.'),
      path,
      kind,
      label: typeof child.title === 'string' ? child.title : key,
      ...(description !== undefined ? { description } : {}),
      required: required.has(key),
      schema: child,
      options,
    });
  }
  return fields;
}

/** The controls' starting values: the schema defaults, else empty. */
export function initialValues(
  fields: readonly FieldSpec[],
): Record<string, string | boolean | readonly string[]> {
  const values: Record<string, string | boolean | readonly string[]> = {};
  for (const field of fields) {
    const fallback = field.schema.default;
    switch (field.kind) {
      case 'boolean':
        values[field.name] = fallback === true;
        break;
      case 'multi-enum':
        values[field.name] = Array.isArray(fallback) ? fallback.map(optionKey) : [];
        break;
      case 'json':
        values[field.name] = fallback === undefined ? '' : JSON.stringify(fallback, null, 2);
        break;
      case 'enum':
        values[field.name] = fallback === undefined ? '' : optionKey(fallback);
        break;
      default:
        values[field.name] = fallback === undefined ? '' : String(fallback);
    }
  }
  return values;
}
