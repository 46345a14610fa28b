import type { JsonSchema } from './schema-form-values.js';

/** A prompt argument as `prompts/list` lists it. */
interface PromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required?: boolean;
}

/** An object schema of string properties, for prompt and template arguments. */
export function stringArgumentsSchema(args: readonly PromptArgument[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const arg of args) {
    properties[arg.name] = {
      type: 'string',
      ...(arg.description ? { description: arg.description } : {}),
    };
  }
  return {
    type: 'object',
    properties,
    required: args.filter((a) => a.required === true).map((a) => a.name),
  };
}

/** The prompt arguments of a `prompts/list` entry (ill-formed ones dropped). */
export function promptArguments(prompt: Readonly<Record<string, unknown>>): PromptArgument[] {
  const list = Array.isArray(prompt.arguments) ? prompt.arguments : [];
  return list.filter(
    (a): a is PromptArgument =>
      typeof a === 'object' && a !== null && typeof (a as { name?: unknown }).name === 'string',
  );
}

/** String values only (prompt and template arguments are strings). */
export function stringValues(value: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v;
  return out;
}
