import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { ToolError } from '../../errors/index.js';
import { formatIssues, validateJsonSchema, validateJsonSchemaNow } from '../../tools/index.js';
import type { JsonSchema, ValidationOutcome } from '../../tools/index.js';
import { isPromiseLike } from '../../util/index.js';
import type { SecretRegistry } from '../../util/index.js';

/**
 * Checks the arguments of a host's direct call (`callTool`) against the input schema the
 * server listed for `tool`, before anything is sent: the same check a run makes of a model's
 * call to a server's tool (the schema's patterns under RE2). A tool the listing does not have
 * is not checked: the server answers for it.
 *
 * @throws ToolError `TOOL_ARGUMENTS_INVALID` (`details.issues`: path and message of each
 * problem) when the arguments do not match (at once, without a promise, when an earlier call
 * compiled the schema); `TOOL_EXECUTION_FAILED` when the schema cannot be
 * used (an invalid pattern, or one RE2 cannot run). Neither is retried: a later try cannot
 * fix it.
 */
export function checkDirectArguments(
  server: string,
  name: string,
  listed: McpTool | undefined,
  args: Readonly<Record<string, unknown>>,
  secrets: SecretRegistry,
): void | Promise<void> {
  if (!listed) return;
  const schema = listed.inputSchema as JsonSchema;
  let outcome: ValidationOutcome | Promise<ValidationOutcome>;
  try {
    // a schema compiled by an earlier call answers at once: no promise on a call's path
    outcome = validateJsonSchemaNow(schema, args, 're2') ?? validateJsonSchema(schema, args, 're2');
  } catch (err) {
    throw unusableSchema(server, name, err, secrets);
  }
  if (!isPromiseLike(outcome)) return judged(server, name, outcome, secrets);
  return outcome.then(
    (checked) => judged(server, name, checked, secrets),
    (err: unknown) => {
      throw unusableSchema(server, name, err, secrets);
    },
  );
}

/** `TOOL_EXECUTION_FAILED`: the listed schema cannot be compiled or run. */
function unusableSchema(
  server: string,
  name: string,
  err: unknown,
  secrets: SecretRegistry,
): ToolError {
  const why = err instanceof Error ? err.message : String(err);
  return new ToolError(
    'TOOL_EXECUTION_FAILED',
    secrets.redact(
      `The input schema of '${name}' on '${server}' could not be used: ${why}. The call was not sent; the server's schema must change.`,
    ),
    { toolName: name, details: { server }, cause: err },
  );
}

function judged(
  server: string,
  name: string,
  checked: ValidationOutcome,
  secrets: SecretRegistry,
): void {
  if (checked.success) return;
  throw new ToolError(
    'TOOL_ARGUMENTS_INVALID',
    secrets.redact(
      `Invalid arguments for '${name}' on '${server}': ${formatIssues(checked.issues)}. The call was not sent: fix the arguments and call again.`,
    ),
    {
      toolName: name,
      details: {
        server,
        issues: checked.issues.map((i) => ({ path: [...i.path], message: i.message })),
      },
    },
  );
}
