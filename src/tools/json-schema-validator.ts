import type { ErrorObject, ValidateFunction } from 'ajv';
import { re2PatternEngine } from './re2-pattern-engine.js';
import type { JsonSchema, ToolInfo, ValidationIssue, ValidationOutcome } from './tool-types.js';

type AjvInstance = { compile(schema: object): ValidateFunction };
type Dialect = 'draft-07' | '2020-12';

/**
 * The engine a schema's `pattern` and `patternProperties` run under: `native` (JavaScript's
 * `RegExp`, a backtracking engine) for schemas the host wrote, `re2` (linear time; no
 * lookaround, backreferences or repeat counts over 1,000) for schemas a server sent.
 */
export type PatternEngine = 'native' | 're2';

const ajvPromises = new Map<`${Dialect}/${PatternEngine}`, Promise<AjvInstance>>();
const compiled: Record<PatternEngine, WeakMap<object, ValidateFunction>> = {
  native: new WeakMap(),
  re2: new WeakMap(),
};

/**
 * The engine for a tool's input schema: RE2 for a server's tool (`source: 'mcp'`), whose
 * schema the host did not write; the native engine for every other tool.
 */
export function patternEngineOf(info: ToolInfo | undefined): PatternEngine {
  return info?.source === 'mcp' ? 're2' : 'native';
}

/**
 * Ajv (and, for `re2`, the RE2 engine) is loaded on first use, so importing Muster stays
 * cheap. Schemas are not registered by `$id` (`addUsedSchema: false`): re-listed tools bring
 * new schema objects with the same ids.
 */
function loadAjv(dialect: Dialect, engine: PatternEngine): Promise<AjvInstance> {
  let p = ajvPromises.get(`${dialect}/${engine}`);
  if (!p) {
    p = (async () => {
      const [ajvModule, formats, regExp] = await Promise.all([
        dialect === '2020-12' ? import('ajv/dist/2020.js') : import('ajv'),
        import('ajv-formats'),
        engine === 're2' ? re2PatternEngine() : undefined,
      ]);
      const AjvClass = ('Ajv2020' in ajvModule
        ? ajvModule.Ajv2020
        : ajvModule.Ajv) as unknown as new (options: object) => AjvInstance;
      const ajv = new AjvClass({
        strict: false,
        allErrors: true,
        validateSchema: false,
        addUsedSchema: false,
        ...(regExp ? { code: { regExp } } : {}),
      });
      (formats.default as unknown as (a: unknown) => void)(ajv);
      return ajv;
    })();
    ajvPromises.set(`${dialect}/${engine}`, p);
  }
  return p;
}

/** Draft-04/06/07 schemas (tuples as `items: [...]`) use the draft-07 validator. */
function dialectOf(schema: JsonSchema): Dialect {
  const declared = schema.$schema;
  return typeof declared === 'string' && /draft-0[4-7]/.test(declared) ? 'draft-07' : '2020-12';
}

/** Compiles (once per schema object) and returns a validator for a JSON Schema. */
async function validatorFor(schema: JsonSchema, engine: PatternEngine): Promise<ValidateFunction> {
  let fn = compiled[engine].get(schema);
  if (fn) return fn;
  const ajv = await loadAjv(dialectOf(schema), engine);
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  fn = ajv.compile(rest);
  compiled[engine].set(schema, fn);
  return fn;
}

/**
 * Validates `value` as {@link validateJsonSchema} does, at once, when the schema's check is
 * compiled already (for this pattern engine); `undefined` when it is not (then call
 * {@link validateJsonSchema}, which compiles it). The tool-call pipeline validates every call
 * after a tool's first this way, without an `await`.
 */
export function validateJsonSchemaNow(
  schema: JsonSchema,
  value: unknown,
  patterns: PatternEngine = 'native',
): ValidationOutcome | undefined {
  const fn = compiled[patterns].get(schema);
  return fn ? outcomeOf(fn, value) : undefined;
}

/** What a compiled check says of `value`, its errors as Muster's issues. */
function outcomeOf(fn: ValidateFunction, value: unknown): ValidationOutcome {
  if (fn(value)) return { success: true, value };
  return { success: false, issues: (fn.errors ?? []).map(toIssue) };
}

/**
 * Compiles a JSON Schema once (per schema object and pattern engine) and returns its check,
 * so a caller can learn that a schema cannot be compiled before it relies on it. Throws when
 * it cannot.
 */
export async function compileJsonSchema(
  schema: JsonSchema,
  patterns: PatternEngine = 'native',
): Promise<(value: unknown) => ValidationOutcome> {
  const fn = await validatorFor(schema, patterns);
  return (value) => outcomeOf(fn, value);
}

/**
 * Validates `value` against a JSON Schema, its patterns under `patterns` (a schema a server
 * sent: `re2`). Throws only when the schema itself cannot be compiled (an invalid pattern, or
 * one RE2 cannot run); the caller decides what that means for the tool.
 */
export async function validateJsonSchema(
  schema: JsonSchema,
  value: unknown,
  patterns: PatternEngine = 'native',
): Promise<ValidationOutcome> {
  return outcomeOf(await validatorFor(schema, patterns), value);
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
