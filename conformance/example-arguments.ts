/**
 * Arguments that satisfy a (simple) JSON Schema: required properties get a value of their
 * type (the schema's default, first enum value, or a plain example), optional ones are left out.
 */
export function exampleArguments(
  schema: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(properties))
    if (required.has(key)) out[key] = exampleValue(prop);
  return out;
}

function exampleValue(prop: Record<string, unknown>): unknown {
  if (prop.default !== undefined) return prop.default;
  if (Array.isArray(prop.enum) && prop.enum.length > 0) return prop.enum[0];
  switch (prop.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return exampleArguments(prop);
    default:
      return 'test';
  }
}
