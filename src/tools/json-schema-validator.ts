import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema, ValidationIssue, ValidationOutcome } from './tool-types.js';

type AjvInstance = { compile(schema: object): ValidateFunction };

let ajvPromise: Promise<AjvInstance> | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** Ajv is loaded on first use, so importing Muster stays cheap. */
function loadAjv(): Promise<AjvInstance> {
  ajvPromise ??= (async () => {
    const [{ Ajv2020 }, formats] = await Promise.all([
      import('ajv/dist/2020.js'),
      import('ajv-formats'),
    ]);
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    (formats.default as unknown as (a: unknown) => void)(ajv);
    return ajv as unknown as AjvInstance;
  })();
  return ajvPromise;
}

/**
 * Compiles (once per schema object) and returns a validator for a JSON Schema. A top-level
 * `$schema` is ignored so draft-07 and 2020-12 schemas both load.
 */
async function validatorFor(schema: JsonSchema): Promise<ValidateFunction> {
  let fn = compiled.get(schema);
  if (fn) return fn;
  const ajv = await loadAjv();
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  fn = ajv.compile(rest);
  compiled.set(schema, fn);
  return fn;
}

/**
 * Validates `value` against a JSON Schema. Throws only when the schema itself cannot be
 * compiled; the caller decides what that means for the tool.
 */
export async function validateJsonSchema(
  schema: JsonSchema,
  value: unknown,
): Promise<ValidationOutcome> {
  const fn = await validatorFor(schema);
  if (fn(value)) return { success: true, value };
  return { success: false, issues: (fn.errors ?? []).map(toIssue) };
}

function toIssue(error: ErrorObject): ValidationIssue {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})`
      : error.keyword === 'required'
        ? ''
        : '';
  return { path, message: `${error.message ?? 'is invalid'}${extra}` };
}

/** Renders issues as one line a model can act on, e.g. `a.b: must be number; c: required`. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  if (issues.length === 0) return 'the value is invalid';
  return issues
    .slice(0, 10)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}
