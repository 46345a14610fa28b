import type {
  CallToolResult,
  JsonSchemaValidator,
  Tool as McpTool,
  jsonSchemaValidator,
} from '@modelcontextprotocol/client';
import { ToolError } from '../../errors/index.js';
import { compileJsonSchema, formatIssues } from '../../tools/index.js';
import type { JsonSchema, ValidationOutcome } from '../../tools/index.js';

// Muster checks a tool's structured output itself, after the result came back: the official
// client refuses a mismatch with a plain `ProtocolError` (-32602), which reads the same as a
// server that refused the call, so "the tool ran and its result is invalid" could not be told
// from "the call was refused" on typed facts.

/**
 * The client's output validator: everything passes, because Muster checks the result itself
 * ({@link OutputCheck}). It stands for the client's own check where the client validates from
 * its cached listing (modern-era calls to a remote server, sent without a definition).
 */
export const OUTPUT_CHECKED_BY_MUSTER: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

const stripped = new WeakMap<McpTool, McpTool>();

/**
 * A tool's definition as handed to the client with a call: without its `outputSchema`, so the
 * client leaves the output alone (Muster checks it), one object per definition.
 */
export function definitionForClient(definition: McpTool): McpTool {
  if (definition.outputSchema === undefined) return definition;
  let copy = stripped.get(definition);
  if (!copy) {
    const { outputSchema: _checkedByMuster, ...rest } = definition;
    copy = rest as McpTool;
    stripped.set(definition, copy);
  }
  return copy;
}

/** The check of one tool's output against its declared `outputSchema`. */
export type OutputCheck = (result: CallToolResult) => void;

/**
 * The output check of a tool that declares an `outputSchema`, compiled before the call is
 * sent (a schema that cannot be compiled refuses the call: `TOOL_EXECUTION_FAILED`, reason
 * `not-sent`); undefined for a tool without one. The check passes error results and
 * `input_required` rounds; any other result must carry `structuredContent` that matches the
 * schema, else it throws `TOOL_EXECUTION_FAILED` with `details.reason: 'output-invalid'` and
 * `details.executed: true`: the tool ran, its result is invalid.
 */
export async function outputCheckFor(
  server: string,
  definition: McpTool | undefined,
): Promise<OutputCheck | undefined> {
  const schema = definition?.outputSchema as JsonSchema | undefined;
  if (!definition || schema === undefined) return undefined;
  const name = definition.name;
  let check: (value: unknown) => ValidationOutcome;
  try {
    check = await compileJsonSchema(schema, 're2'); // a server's schema: its patterns under RE2
  } catch (err) {
    throw new ToolError(
      'TOOL_EXECUTION_FAILED',
      `Tool '${name}' of server '${server}' declares an output schema that cannot be compiled, so its result could not be checked: the call was not sent. Fix the tool's outputSchema on the server.`,
      { toolName: name, cause: err, details: { server, reason: 'not-sent' } },
    );
  }
  return (result) => {
    if (result.isError === true) return;
    if ((result as { resultType?: unknown }).resultType === 'input_required') return;
    const invalid = (why: string) =>
      new ToolError(
        'TOOL_EXECUTION_FAILED',
        `Tool '${name}' of server '${server}' ran, but its result is invalid: ${why}. The call was not retried.`,
        { toolName: name, details: { server, reason: 'output-invalid', executed: true } },
      );
    if (result.structuredContent === undefined)
      throw invalid('it declares an output schema and returned no structured content');
    const outcome = check(result.structuredContent);
    if (!outcome.success)
      throw invalid(
        `its structured content does not match its output schema (${formatIssues(outcome.issues)})`,
      );
  };
}
