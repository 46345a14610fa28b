import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/client';
import { formatIssues, validateJsonSchema } from '../../tools/index.js';
import { loadClient } from '../failures/client-errors.js';

/**
 * The definition a round of a call hands the official client (see `CallRound`): the tool's
 * listed definition without its `outputSchema`. The client checks a tool's output schema on
 * every answer, an `input_required` one included (which has no structured content and would
 * fail); Muster checks it on the complete answer instead ({@link checkRoundOutput}). The
 * input schema stays, so the client's header mirroring works as for any call.
 */
export function roundDefinition(definition: McpTool): McpTool {
  const { outputSchema: _output, ...rest } = definition;
  return rest as McpTool;
}

/**
 * Checks a complete answer to a round against the tool's output schema, failing as the
 * official client's own check does (a `ProtocolError`, so the call is classified the same
 * way): an answer without structured content, or with content the schema refuses. An error
 * result is not checked.
 */
export async function checkRoundOutput(
  definition: McpTool | undefined,
  result: CallToolResult,
): Promise<void> {
  const schema = definition?.outputSchema;
  if (!schema || result.isError) return;
  const { ProtocolError, ProtocolErrorCode } = await loadClient();
  if (result.structuredContent === undefined)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `Tool ${definition.name} has an output schema but did not return structured content`,
    );
  const checked = await validateJsonSchema(schema, result.structuredContent);
  if (!checked.success)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Structured content does not match the tool's output schema: ${formatIssues(checked.issues)}`,
    );
}
