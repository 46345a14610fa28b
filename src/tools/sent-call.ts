import { ownArguments, parseArguments } from './call-arguments.js';
import type { CallArguments } from './call-arguments.js';
import { pass, refuse } from './call-stage.js';
import type { StageResult } from './call-stage.js';
import type { CatalogEntry } from './tool-catalog.js';
import type { SentTask, ToolCallEnvironment, ToolCallRequest } from './tool-call-types.js';

/**
 * The stages of a call that was sent before its run parked or its process died, and became a
 * task (SPEC 15.3): the decision to send it was taken and recorded then, so visibility,
 * validation, `beforeTool` hooks and the policy do not run again; the call only polls its
 * task on. What cannot be followed here (its tool is gone from the run's catalog, its
 * arguments no longer parse) is `TOOL_OUTCOME_UNKNOWN`, never a refusal that would say it did
 * not run.
 */

/** The catalog entry of a sent call: visible or not now, it was when the call was sent. */
export function sentCallEntry(
  call: ToolCallRequest,
  env: ToolCallEnvironment,
  sent: SentTask,
): StageResult<CatalogEntry> {
  const entry = env.catalog.get(call.name);
  return entry
    ? pass(entry)
    : unfollowable(call, sent, `'${call.name}' is no longer among the run's tools`);
}

/**
 * The arguments of a sent call, as the model gave them (parsed once more, not validated: the
 * server took them when the call was sent).
 */
export function sentCallArguments(
  call: ToolCallRequest,
  env: ToolCallEnvironment,
  sent: SentTask,
): StageResult<CallArguments> {
  const parsed = parseArguments(
    call.argumentsText,
    { maxBytes: env.maxToolArgumentBytes, maxDepth: env.maxToolArgumentDepth },
    call.arguments,
  );
  const value = parsed.ok ? parsed.value : undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return unfollowable(call, sent, "its arguments no longer pass the run's limits");
  return pass(ownArguments(value as CallArguments));
}

function unfollowable<T>(call: ToolCallRequest, sent: SentTask, why: string): StageResult<T> {
  return refuse(
    'TOOL_OUTCOME_UNKNOWN',
    `The call to '${call.name}' became task ${sent.taskId} on server '${sent.server}' before the run parked, and ${why}: its task cannot be followed. The call may or may not have taken effect; it was not sent again.`,
    true,
  );
}
