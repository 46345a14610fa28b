import { describeFailure, pass, refuse } from './call-stage.js';
import type { StageResult } from './call-stage.js';
import type { CatalogEntry } from './tool-catalog.js';
import type { ToolCallEnvironment, ToolCallRequest } from './tool-call-types.js';
import { resultBytes } from './tool-result.js';
import type { ToolResult } from './tool-types.js';

/**
 * Applies the result limit (`TOOL_RESULT_TOO_LARGE` over `maxToolResultBytes`, counting every
 * byte the result carries), then the environment's last step (`finishResult`, for example
 * archiving), whose failure is `TOOL_EXECUTION_FAILED`. The tool has run, so every refusal here
 * has `executed: true`.
 */
export async function finishCallResult(
  entry: CatalogEntry,
  result: ToolResult,
  call: ToolCallRequest,
  env: ToolCallEnvironment,
): Promise<StageResult<ToolResult>> {
  const bytes = resultBytes(result);
  if (bytes > env.maxToolResultBytes) {
    return refuse(
      'TOOL_RESULT_TOO_LARGE',
      `The result of '${entry.name}' is ${bytes} bytes, over the limit of ${env.maxToolResultBytes}. Ask for less data (narrower query, pagination).`,
      true,
    );
  }
  if (!env.finishResult) return pass(result);
  try {
    return pass(await env.finishResult(result, entry, call));
  } catch (err) {
    return refuse(
      'TOOL_EXECUTION_FAILED',
      `The result of '${entry.name}' could not be stored: ${describeFailure(err)}`,
      true,
    );
  }
}
