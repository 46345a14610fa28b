/**
 * The pure half of the schema form: the fields a JSON Schema asks for, their raw control values,
 * and the check and conversion of those values into the object to send.
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

const isObject = (value: unknown): value is Record<string, unknown> =>
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

function optionKey(value: unknown): string {
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

/** The fields of an object schema, nested objects with properties flattened to `a.b`. */
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
    if (schemaType(child) === 'object' && isObject(child.properties) && !enumOptions(child)) {
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

/** Whether the nested object holding a field is itself required all the way up. */
function requiredPath(schema: JsonSchema, path: readonly string[]): boolean {
  let current: JsonSchema = schema;
  for (const key of path.slice(0, -1)) {
    const required = Array.isArray(current.required) ? current.required : [];
    if (!required.includes(key)) return false;
    const properties = isObject(current.properties) ? current.properties : {};
    current = isObject(properties[key]) ? (properties[key] as JsonSchema) : {};
  }
  return true;
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

const FORMATS: Readonly<Record<string, RegExp>> = {
  email: /^[^\s@]+@[^\s@]+$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/,
};

function checkString(text: string, schema: JsonSchema): string | undefined {
  const length = [...text].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) {
    return `At least ${schema.minLength} characters.`;
  }
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
    return `At most ${schema.maxLength} characters.`;
  }
  if (typeof schema.pattern === 'string') {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      pattern = undefined; // a pattern the browser cannot compile is left to the server
    }
    if (pattern && !pattern.test(text)) return `Must match the pattern ${schema.pattern}.`;
  }
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  if (format && FORMATS[format] && !FORMATS[format].test(text)) return `Must be a valid ${format}.`;
  if ((format === 'uri' || format === 'url') && !URL.canParse(text)) return 'Must be a valid URI.';
  return undefined;
}

function checkNumber(text: string, field: FieldSpec): { value?: number; error?: string } {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) return { error: 'Must be a number.' };
  if (field.kind === 'integer' && !Number.isInteger(value))
    return { error: 'Must be a whole number.' };
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = field.schema;
  if (typeof minimum === 'number' && value < minimum)
    return { error: `Must be ${minimum} or more.` };
  if (typeof maximum === 'number' && value > maximum)
    return { error: `Must be ${maximum} or less.` };
  if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) {
    return { error: `Must be more than ${exclusiveMinimum}.` };
  }
  if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum) {
    return { error: `Must be less than ${exclusiveMaximum}.` };
  }
  return { value };
}

function checkJson(text: string, schema: JsonSchema): { value?: unknown; error?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'Must be valid JSON.' };
  }
  const type = schemaType(schema);
  if (type === 'array' && !Array.isArray(value)) return { error: 'Must be a JSON array.' };
  if (type === 'object' && !isObject(value)) return { error: 'Must be a JSON object.' };
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      return { error: `At least ${schema.minItems} items.` };
    }
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      return { error: `At most ${schema.maxItems} items.` };
    }
  }
  return { value };
}

/** Checks one field; `present: false` means "leave it out". */
function checkField(
  field: FieldSpec,
  raw: string | boolean | readonly string[] | undefined,
  mustHave: boolean,
): { present: boolean; value?: unknown; error?: string } {
  if (field.kind === 'boolean') {
    const checked = raw === true;
    const send = checked || mustHave || field.schema.default !== undefined;
    return send ? { present: true, value: checked } : { present: false };
  }
  if (field.kind === 'multi-enum') {
    const keys = Array.isArray(raw) ? raw : [];
    if (keys.length === 0 && !mustHave) return { present: false };
    const values = keys.map((k) => field.options.find((o) => o.key === k)?.value);
    const { minItems, maxItems } = field.schema;
    if (typeof minItems === 'number' && values.length < minItems) {
      return { present: true, error: `Choose at least ${minItems}.` };
    }
    if (typeof maxItems === 'number' && values.length > maxItems) {
      return { present: true, error: `Choose at most ${maxItems}.` };
    }
    return { present: true, value: values };
  }
  const text = typeof raw === 'string' ? raw : '';
  if (text.trim() === '' && field.kind !== 'string') {
    return mustHave ? { present: true, error: 'Required.' } : { present: false };
  }
  if (text === '') return mustHave ? { present: true, error: 'Required.' } : { present: false };
  switch (field.kind) {
    case 'enum': {
      const option = field.options.find((o) => o.key === text);
      return option
        ? { present: true, value: option.value }
        : { present: true, error: 'Choose one of the options.' };
    }
    case 'number':
    case 'integer':
      return { present: true, ...checkNumber(text, field) };
    case 'json':
      return { present: true, ...checkJson(text, field.schema) };
    default: {
      const error = checkString(text, field.schema);
      return error ? { present: true, error } : { present: true, value: text };
    }
  }
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = target;
  for (const key of path.slice(0, -1)) {
    if (!isObject(current[key])) current[key] = {};
    current = current[key] as Record<string, unknown>;
  }
  current[path[path.length - 1] as string] = value;
}

/**
 * Checks every field as the page can (required, types, enum, bounds, lengths, pattern, format)
 * and builds the object to send: numbers as numbers, empty optional fields left out, nested
 * fields under their parent. The server checks again against the full schema.
 */
export function checkValues(
  schema: JsonSchema | undefined,
  fields: readonly FieldSpec[],
  raw: RawValues,
): FormCheck {
  const value: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  const root = schema ?? {};
  for (const field of fields) {
    const mustHave = field.required && requiredPath(root, field.path);
    const result = checkField(field, raw[field.name], mustHave);
    if (result.error) errors[field.name] = result.error;
    else if (result.present) setPath(value, field.path, result.value);
  }
  // a field of an optional nested object becomes required once the object is there
  for (const field of fields) {
    if (!field.required || errors[field.name] || field.path.length < 2) continue;
    const parent = field.path.slice(0, -1);
    let holder: unknown = value;
    for (const key of parent) holder = isObject(holder) ? holder[key] : undefined;
    if (isObject(holder) && !(field.path[field.path.length - 1]! in holder))
      errors[field.name] = 'Required.';
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}
