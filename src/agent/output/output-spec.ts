import { MusterError } from '../../errors/index.js';
import type { ModelOutputFormat } from '../../model/index.js';
import { dataDepth, jsonTextDepth, MAX_DATA_DEPTH } from '../../util/index.js';
import {
  exportJsonSchema,
  isStandardSchema,
  validateJsonSchema,
  validateStandard,
} from '../../tools/index.js';
import type {
  InferOutput,
  JsonSchema,
  StandardSchemaV1Like,
  ValidationIssue,
} from '../../tools/index.js';
import { strictForm } from './strict-form.js';
import { restoreAnswer } from './strict-restore.js';

/** The schema of a typed final answer: a Standard Schema with JSON Schema export, or JSON Schema. */
export type OutputSchema = StandardSchemaV1Like | JsonSchema;

/** A typed final answer's schema with the name and description the model is shown. */
export interface OutputRequest<S extends OutputSchema = OutputSchema> {
  readonly schema: S;
  /** The schema's name where the provider sends one (default `final_answer`). */
  readonly name?: string;
  readonly description?: string;
}

/**
 * What `run({ output })` and `send(text, { output })` take (SPEC 15.4): a Standard Schema that
 * exports JSON Schema (Zod 4, ArkType, Valibot through `toStandardJsonSchema`), or
 * `{ schema, name?, description? }` whose schema is one of those or a plain JSON Schema object.
 */
export type OutputOption = StandardSchemaV1Like | OutputRequest;

/** The value a run with `output: O` answers with: the schema's output type (`unknown` for JSON Schema). */
export type OutputValue<O> = O extends StandardSchemaV1Like
  ? InferOutput<O>
  : O extends { readonly schema: infer S }
    ? S extends StandardSchemaV1Like
      ? InferOutput<S>
      : unknown
    : unknown;

/** How a final answer read: its value, or what is wrong with it. */
export type AnswerReading =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly reason: 'output-not-json' | 'output-schema-mismatch';
      readonly issues: readonly ValidationIssue[];
    };

/** A run's output option, settled at run start: what the model is asked, how answers are read. */
export interface OutputSpec {
  /** What each model request carries. */
  readonly format: ModelOutputFormat;
  /** Parses the final answer, undoes the sent form and validates it against the host's schema. */
  read(text: string): Promise<AnswerReading>;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const REQUEST_KEYS = new Set(['schema', 'name', 'description']);

/**
 * Settles a run's `output` option. Fails with `INVALID_CONFIGURATION` (before anything is sent
 * or written) for a value that is neither form, unknown keys, a bad name, a Standard Schema
 * that cannot export JSON Schema, a JSON Schema that does not compile, or a schema nested
 * deeper than `MAX_DATA_DEPTH`.
 */
export async function resolveOutput(option: unknown, where: string): Promise<OutputSpec> {
  const request = outputRequest(option, where);
  const schema = request.schema;
  const standard = isStandardSchema(schema) ? schema : undefined;
  const json = standard
    ? exportJsonSchema(standard, 'input', `${where}.schema`, true)
    : (schema as JsonSchema);
  // bounds every walk of the schema below (the strict form, reading answers back)
  if (dataDepth(json) > MAX_DATA_DEPTH)
    throw invalid(`${where}.schema nests deeper than ${MAX_DATA_DEPTH} levels: flatten it.`);
  if (!standard) await assertCompiles(json, where);
  const form = strictForm(json);
  const format: ModelOutputFormat = {
    name: request.name ?? 'final_answer',
    ...(request.description !== undefined ? { description: request.description } : {}),
    schema: form.schema,
    strict: form.strict,
  };
  return {
    format,
    async read(text) {
      const parsed = parseAnswer(text);
      if (!parsed.ok) return parsed;
      const value = restoreAnswer(parsed.value, json, form);
      const outcome = standard
        ? await validateStandard(standard, value)
        : await validateJsonSchema(json, value);
      return outcome.success
        ? { ok: true, value: outcome.value }
        : { ok: false, reason: 'output-schema-mismatch', issues: outcome.issues };
    },
  };
}

function outputRequest(option: unknown, where: string): OutputRequest {
  if (isStandardSchema(option)) return { schema: option };
  const hint =
    'give a Standard Schema (for example z.object({...})) or { schema, name?, description? }';
  if (typeof option !== 'object' || option === null || Array.isArray(option))
    throw invalid(`${where} must be an output schema: ${hint}.`);
  if (!('schema' in option))
    throw invalid(
      `${where} has no schema: ${hint}; a plain JSON Schema goes inside, as { schema: {...} }.`,
    );
  for (const key of Object.keys(option))
    if (!REQUEST_KEYS.has(key))
      throw invalid(
        `${where} has an unknown key '${key}': the known keys are schema, name and description.`,
      );
  const { schema, name, description } = option as OutputRequest;
  if (name !== undefined && (typeof name !== 'string' || !NAME.test(name)))
    throw invalid(`${where}.name must be 1-64 letters, digits, '_' or '-' (providers require it).`);
  if (description !== undefined && typeof description !== 'string')
    throw invalid(`${where}.description must be a string.`);
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw invalid(`${where}.schema must be a Standard Schema or a JSON Schema object.`);
  return option as OutputRequest;
}

async function assertCompiles(schema: JsonSchema, where: string): Promise<void> {
  try {
    await validateJsonSchema(schema, null);
  } catch (err) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}.schema is not a valid JSON Schema (${err instanceof Error ? err.message : String(err)}): fix the schema.`,
      { cause: err },
    );
  }
}

/** The answer's JSON: the whole text, or the one fenced block it is wrapped in (```json). */
function parseAnswer(text: string): AnswerReading {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const json = fenced ? fenced[1]! : trimmed;
  // refused before it is parsed: nothing reading, checking or storing the answer walks it
  if (jsonTextDepth(json) > MAX_DATA_DEPTH)
    return {
      ok: false,
      reason: 'output-schema-mismatch',
      issues: [
        {
          path: [],
          message: `the answer nests deeper than ${MAX_DATA_DEPTH} levels of objects and arrays`,
        },
      ],
    };
  try {
    return { ok: true, value: JSON.parse(json) as unknown };
  } catch (err) {
    const problem = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      reason: 'output-not-json',
      issues: [{ path: [], message: `the answer is not JSON (${problem})` }],
    };
  }
}

function invalid(message: string): MusterError {
  return new MusterError('INVALID_CONFIGURATION', `Invalid run request: ${message}`);
}
