import { MusterError } from '../errors/index.js';
import {
  assertValid,
  checkedElsewhere,
  isBoolean,
  isString,
  optional,
  shape,
} from '../util/index.js';
import type { Check } from '../util/index.js';
import { assertHostToolName } from './naming.js';
import { exportJsonSchema, isStandardSchema } from './standard-schema.js';
import type { InferOutput, StandardSchemaV1Like } from './standard-schema.js';
import type {
  JsonSchema,
  ToolAnnotations,
  ToolExecutionContext,
  ToolResult,
  ToolReturn,
} from './tool-types.js';

/** What {@link tool} takes. `input` and `output` are Standard Schemas that export JSON Schema. */
export interface ToolSpec<
  I extends StandardSchemaV1Like,
  O extends StandardSchemaV1Like | undefined,
> {
  readonly name: string;
  readonly description: string;
  readonly input: I;
  /** When given, results must carry `structured` output that this schema accepts. */
  readonly output?: O;
  readonly annotations?: ToolAnnotations;
  readonly execute: (
    args: InferOutput<I>,
    ctx: ToolExecutionContext,
  ) => O extends StandardSchemaV1Like
    ?
        | Promise<ToolResult & { structured: InferOutput<O> }>
        | (ToolResult & { structured: InferOutput<O> })
    : Promise<ToolReturn> | ToolReturn;
}

/** The hints a tool's annotations may carry; other keys are refused. */
export const toolAnnotationsShape: Check = shape({
  title: optional(isString()),
  readOnlyHint: optional(isBoolean),
  destructiveHint: optional(isBoolean),
  idempotentHint: optional(isBoolean),
  openWorldHint: optional(isBoolean),
} satisfies Record<keyof ToolAnnotations, Check>);

/** The keys of a {@link ToolSpec}; its values are checked in {@link tool}, annotations here. */
const specShape = shape({
  name: checkedElsewhere,
  description: checkedElsewhere,
  input: checkedElsewhere,
  output: checkedElsewhere,
  annotations: optional(toolAnnotationsShape),
  execute: checkedElsewhere,
} satisfies Record<keyof ToolSpec<StandardSchemaV1Like, undefined>, Check>);

/** A host tool, ready to give to `createAgent({ tools })`. */
export interface Tool {
  readonly kind: 'muster.tool';
  readonly name: string;
  readonly description: string;
  readonly input: StandardSchemaV1Like;
  readonly output?: StandardSchemaV1Like;
  readonly inputJsonSchema: JsonSchema;
  readonly outputJsonSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly execute: (args: never, ctx: ToolExecutionContext) => Promise<ToolReturn> | ToolReturn;
}

/**
 * Defines a host tool from Standard Schemas (Zod 4, ArkType, Valibot via
 * `toStandardJsonSchema`). The JSON Schema the model sees is exported once, here; invalid
 * names or schemas and unknown keys (of the spec or of its annotations) fail at once with
 * `INVALID_CONFIGURATION`.
 *
 * @example
 * ```ts
 * const add = tool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   annotations: { readOnlyHint: true },
 *   execute: ({ a, b }) => String(a + b),
 * });
 * ```
 */
export function tool<
  I extends StandardSchemaV1Like,
  O extends StandardSchemaV1Like | undefined = undefined,
>(spec: ToolSpec<I, O>): Tool {
  if (typeof spec !== 'object' || spec === null) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'tool() needs an object { name, description, input, execute }.',
    );
  }
  assertHostToolName(spec.name);
  const where = `Tool '${spec.name}'`;
  assertValid(spec, specShape, `tool() options of '${spec.name}'`);
  if (typeof spec.description !== 'string') {
    throw new MusterError('INVALID_CONFIGURATION', `${where}: description must be a string.`);
  }
  if (typeof spec.execute !== 'function') {
    throw new MusterError('INVALID_CONFIGURATION', `${where}: execute must be a function.`);
  }
  if (!isStandardSchema(spec.input)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${where}: input must be a Standard Schema (for example z.object({...})).`,
    );
  }
  if (spec.output !== undefined && !isStandardSchema(spec.output)) {
    throw new MusterError('INVALID_CONFIGURATION', `${where}: output must be a Standard Schema.`);
  }
  const inputJsonSchema = exportJsonSchema(spec.input, 'input', where);
  const outputJsonSchema = spec.output ? exportJsonSchema(spec.output, 'output', where) : undefined;
  return Object.freeze({
    kind: 'muster.tool' as const,
    name: spec.name,
    description: spec.description,
    input: spec.input,
    ...(spec.output ? { output: spec.output } : {}),
    inputJsonSchema,
    ...(outputJsonSchema ? { outputJsonSchema } : {}),
    ...(spec.annotations ? { annotations: { ...spec.annotations } } : {}),
    execute: spec.execute as Tool['execute'],
  });
}

/** True for a value made by {@link tool}. */
export function isTool(value: unknown): value is Tool {
  return typeof value === 'object' && value !== null && (value as Tool).kind === 'muster.tool';
}
