/** The page's own check of a generated form's raw values, and their conversion to JSON. */
import {
  isObject,
  schemaType,
  type FieldSpec,
  type FormCheck,
  type JsonSchema,
  type RawValues,
} from './schema-form-values.js';

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
