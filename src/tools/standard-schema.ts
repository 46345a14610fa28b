import { MusterError } from '../errors/index.js';
import { isPromiseLike } from '../util/index.js';
import type { JsonSchema, ValidationIssue, ValidationOutcome } from './tool-types.js';

/** The Standard Schema v1 surface Muster relies on (validation). */
export interface StandardSchemaV1Like<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** Standard JSON Schema: how the schema exports itself as JSON Schema. */
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
      }>;
    };

/** The output type of a Standard Schema. */
export type InferOutput<S> = S extends StandardSchemaV1Like<unknown, infer O> ? O : never;

/** True when `value` looks like a Standard Schema. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1Like {
  const std = (value as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.[
    '~standard'
  ];
  return (
    typeof std === 'object' &&
    std !== null &&
    std.version === 1 &&
    typeof std.validate === 'function'
  );
}

/**
 * Exports a Standard Schema as a JSON Schema object (draft 2020-12). Fails with
 * `INVALID_CONFIGURATION` when the library cannot, or when the root is not an object schema
 * (unless `anyRoot`: a typed final answer may be a list or a string).
 */
export function exportJsonSchema(
  schema: StandardSchemaV1Like,
  io: 'input' | 'output',
  where: string,
  anyRoot = false,
): JsonSchema {
  const exporter = schema['~standard'].jsonSchema;
  if (!exporter) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: the ${schema['~standard'].vendor} schema cannot export JSON Schema. Use a Standard JSON Schema (Zod 4, ArkType, or Valibot wrapped with toStandardJsonSchema).`,
      { details: { vendor: schema['~standard'].vendor } },
    );
  }
  let json: Record<string, unknown>;
  try {
    json = exporter[io]({ target: 'draft-2020-12' });
  } catch (err) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: the schema could not be exported as JSON Schema (${err instanceof Error ? err.message : String(err)}). Remove transforms or custom types the exporter does not support.`,
      { cause: err },
    );
  }
  if (!anyRoot && json.type !== 'object') {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: the ${io} schema must describe an object (got type ${JSON.stringify(json.type)}). Wrap the fields in an object schema.`,
    );
  }
  return json;
}

/**
 * Validates with a Standard Schema and maps its issues to Muster's shape: at once when the
 * schema validates synchronously (Zod, Valibot and ArkType do), else when its promise settles.
 */
export function validateStandard(
  schema: StandardSchemaV1Like,
  value: unknown,
): ValidationOutcome | Promise<ValidationOutcome> {
  const result = schema['~standard'].validate(value);
  return isPromiseLike(result) ? Promise.resolve(result).then(outcomeOf) : outcomeOf(result);
}

function outcomeOf(result: StandardResult<unknown>): ValidationOutcome {
  if (result.issues === undefined) return { success: true, value: result.value };
  return {
    success: false,
    issues: result.issues.map(
      (i): ValidationIssue => ({
        message: i.message,
        path: Array.from(i.path ?? [], (p) => {
          const key = typeof p === 'object' && p !== null && 'key' in p ? p.key : p;
          return typeof key === 'number' ? key : String(key);
        }),
      }),
    ),
  };
}
