import { isPromiseLike } from '../util/index.js';
import { describeFailure, pass, refuse } from './call-stage.js';
import type { StageResult } from './call-stage.js';
import type { CatalogEntry } from './tool-catalog.js';
import type { ToolCallEnvironment, ToolCallRequest } from './tool-call-types.js';
import { resultBytes } from './tool-result.js';
import type { ToolResult } from './tool-types.js';

/**
 * The result limit: `TOOL_RESULT_TOO_LARGE` over `maxToolResultBytes`, counting every byte the
 * result carries. The tool has run, so the refusal has `executed: true`.
 */
export function checkResultLimit(
  entry: CatalogEntry,
  result: ToolResult,
  env: ToolCallEnvironment,
): StageResult<ToolResult> {
  const bytes = resultBytes(result);
  if (bytes > env.maxToolResultBytes) {
    return refuse(
      'TOOL_RESULT_TOO_LARGE',
      `The result of '${entry.name}' is ${bytes} bytes, over the limit of ${env.maxToolResultBytes}. Ask for less data (narrower query, pagination).`,
      true,
    );
  }
  return pass(result);
}

/**
 * The environment's last step after the limit (`finishResult`, for example archiving), whose
 * failure is `TOOL_EXECUTION_FAILED` with `executed: true`. A step that finished at once (a
 * result with nothing to archive) is answered at once, not through a promise.
 */
export function storeCallResult(
  finish: NonNullable<ToolCallEnvironment['finishResult']>,
  entry: CatalogEntry,
  result: ToolResult,
  call: ToolCallRequest,
): StageResult<ToolResult> | Promise<StageResult<ToolResult>> {
  let finished: ToolResult | PromiseLike<ToolResult>;
  try {
    finished = finish(result, entry, call);
  } catch (err) {
    return notStored(entry, err);
  }
  if (!isPromiseLike(finished)) return pass(finished);
  return Promise.resolve(finished).then(pass, (err: unknown) => notStored(entry, err));
}

function notStored(entry: CatalogEntry, err: unknown): StageResult<ToolResult> {
  return refuse(
    'TOOL_EXECUTION_FAILED',
    `The result of '${entry.name}' could not be stored: ${describeFailure(err)}`,
    true,
  );
}
