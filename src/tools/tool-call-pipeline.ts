import { MusterError } from '../errors/index.js';
import type { ToolErrorCode } from '../errors/index.js';
import type { AuthorizationDecision, AuthorizationRequest, ToolPolicy } from '../policy/index.js';
import type { AfterToolHook, BeforeToolHook, ToolHookContext } from './tool-hooks.js';
import { raceAbort, utf8Bytes } from '../util/index.js';
import { formatIssues, validateJsonSchema } from './json-schema-validator.js';
import type { CatalogEntry, ToolCatalog } from './tool-catalog.js';
import type { ToolEvent } from './tool-events.js';
import { errorResult, normalizeToolReturn, resultBytes } from './tool-result.js';
import type { ToolProgress, ToolResult, ValidationOutcome } from './tool-types.js';

/** One call the model asked for. */
export interface ToolCallRequest {
  readonly callId: string;
  readonly name: string;
  /** The raw JSON text of the arguments, as the model produced it. */
  readonly argumentsText: string;
  readonly iteration: number;
}

/** Everything the pipeline needs from its run. */
export interface ToolCallEnvironment {
  readonly sessionId: string;
  readonly runId: string;
  readonly signal: AbortSignal;
  readonly catalog: ToolCatalog;
  readonly policy: ToolPolicy;
  readonly beforeTool: readonly BeforeToolHook[];
  readonly afterTool: readonly AfterToolHook[];
  readonly maxToolArgumentBytes: number;
  readonly maxToolResultBytes: number;
  readonly emit: (event: ToolEvent) => void;
  readonly onObserverError?: (err: unknown) => void;
  /**
   * The last step before the result is reported, after the result limit: for example
   * archiving a large result and replacing it with a preview and a reference.
   */
  readonly finishResult?: (
    result: ToolResult,
    entry: CatalogEntry,
    call: ToolCallRequest,
  ) => Promise<ToolResult>;
}

/** How one call ended. */
export interface ToolCallOutcome {
  readonly callId: string;
  readonly toolName: string;
  readonly result: ToolResult;
  readonly errorCode?: ToolErrorCode;
  readonly executed: boolean;
  /** Set when the policy redirected the call: the new user instruction. */
  readonly redirect?: string;
}

class Refusal {
  constructor(
    readonly code: ToolErrorCode,
    readonly message: string,
  ) {}
}

/**
 * Runs one tool call through the whole pipeline, in the order of SPEC section 5: visibility,
 * validation, `beforeTool` hooks (re-validating rewrites), policy (deny, rules, allow,
 * default/approval), execution, `afterTool` hooks, result limits. Every tool-level failure
 * becomes an error result the model can read; only an abort of the run rejects.
 */
export async function runToolCall(
  call: ToolCallRequest,
  env: ToolCallEnvironment,
): Promise<ToolCallOutcome> {
  const started = performance.now();
  const finish = (outcome: ToolCallOutcome): ToolCallOutcome => {
    env.emit({
      type: 'tool.completed',
      ...base(env),
      callId: call.callId,
      toolName: call.name,
      isError: outcome.result.isError === true,
      content: outcome.result.content,
      ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
      executed: outcome.executed,
      durationMs: performance.now() - started,
    });
    return outcome;
  };
  const refuse = (r: Refusal, executed = false): ToolCallOutcome =>
    finish({
      callId: call.callId,
      toolName: call.name,
      result: errorResult(r.code, r.message),
      errorCode: r.code,
      executed,
    });

  const entry = env.catalog.isVisible(call.name) ? env.catalog.get(call.name) : undefined;
  if (!entry) {
    return refuse(
      new Refusal(
        'TOOL_NOT_FOUND',
        `There is no tool named '${call.name}'. Call one of the tools you were given.`,
      ),
    );
  }
  const hookContext: ToolHookContext = {
    toolName: entry.name,
    callId: call.callId,
    sessionId: env.sessionId,
    runId: env.runId,
    iteration: call.iteration,
    info: entry.info,
    ...(entry.annotations ? { annotations: entry.annotations } : {}),
    signal: env.signal,
  };

  let args: Record<string, unknown>;
  try {
    args = await checkArguments(
      entry,
      parseArguments(call.argumentsText, env.maxToolArgumentBytes),
      env,
    );
    args = await runBeforeHooks(entry, args, hookContext, env);
  } catch (err) {
    if (err instanceof Refusal) return refuse(err);
    throw err;
  }

  const request: AuthorizationRequest = {
    kind: 'tool',
    capability: entry.name,
    toolName: entry.name,
    source: entry.info.source,
    ...(entry.info.server !== undefined ? { server: entry.info.server } : {}),
    ...(entry.info.originalName !== undefined ? { originalName: entry.info.originalName } : {}),
    arguments: args,
    ...(entry.annotations ? { annotations: entry.annotations } : {}),
    ...(entry.info.metadata ? { metadata: entry.info.metadata } : {}),
    sessionId: env.sessionId,
    runId: env.runId,
    callId: call.callId,
    iteration: call.iteration,
  };
  const decision = await env.policy.authorize(request, {
    signal: env.signal,
    onApprovalRequested: () =>
      env.emit({
        type: 'tool.approval.requested',
        ...base(env),
        callId: call.callId,
        toolName: entry.name,
        source: entry.info.source,
        ...(entry.info.server !== undefined ? { server: entry.info.server } : {}),
        arguments: args,
        ...(entry.annotations ? { annotations: entry.annotations } : {}),
      }),
    ...(env.onObserverError ? { onObserverError: env.onObserverError } : {}),
  });
  emitDecision(env, call, decision);

  if (env.policy.dryRun) {
    const verdict =
      decision.decision === 'allow'
        ? 'would be allowed'
        : `would be ${decision.decision === 'deny' ? 'denied' : 'redirected'}`;
    return finish({
      callId: call.callId,
      toolName: entry.name,
      result: {
        content: `Dry run: this call ${verdict} (${decision.stage}: ${decision.reason ?? 'no reason'}) and was not executed.`,
      },
      executed: false,
    });
  }
  if (decision.decision === 'deny') {
    const code = decision.code ?? 'TOOL_DENIED';
    return refuse(
      new Refusal(
        code,
        `The call was denied (${decision.reason ?? decision.stage}). Do not retry it; choose another approach or ask the user.`,
      ),
    );
  }
  if (decision.decision === 'redirect') {
    return finish({
      callId: call.callId,
      toolName: entry.name,
      result: {
        content:
          'Not executed: the user redirected this call. Follow the new instruction that comes next.',
      },
      executed: false,
      redirect: decision.message ?? '',
    });
  }

  env.emit({
    type: 'tool.called',
    ...base(env),
    callId: call.callId,
    toolName: entry.name,
    source: entry.info.source,
    ...(entry.info.server !== undefined ? { server: entry.info.server } : {}),
    arguments: args,
  });
  let result: ToolResult;
  try {
    result = await execute(entry, args, call, env);
    result = await runAfterHooks(entry, args, result, hookContext, env);
  } catch (err) {
    if (err instanceof Refusal) return refuse(err, true);
    throw err;
  }
  if (resultBytes(result) > env.maxToolResultBytes) {
    return refuse(
      new Refusal(
        'TOOL_RESULT_TOO_LARGE',
        `The result of '${entry.name}' is ${resultBytes(result)} bytes, over the limit of ${env.maxToolResultBytes}. Ask for less data (narrower query, pagination).`,
      ),
      true,
    );
  }
  if (env.finishResult) {
    try {
      result = await env.finishResult(result, entry, call);
    } catch (err) {
      return refuse(
        new Refusal(
          'TOOL_EXECUTION_FAILED',
          `The result of '${entry.name}' could not be stored: ${describe(err)}`,
        ),
        true,
      );
    }
  }
  return finish({ callId: call.callId, toolName: entry.name, result, executed: true });
}

function base(env: ToolCallEnvironment) {
  return { timestamp: new Date().toISOString(), sessionId: env.sessionId, runId: env.runId };
}

function emitDecision(
  env: ToolCallEnvironment,
  call: ToolCallRequest,
  d: AuthorizationDecision,
): void {
  env.emit({
    type: 'tool.decision',
    ...base(env),
    callId: call.callId,
    toolName: call.name,
    decision: d.decision,
    stage: d.stage,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
    ...(d.ruleId !== undefined ? { ruleId: d.ruleId } : {}),
    dryRun: env.policy.dryRun,
  });
}

function parseArguments(text: string, maxBytes: number): unknown {
  const size = utf8Bytes(text);
  if (size > maxBytes) {
    throw new Refusal(
      'TOOL_ARGUMENTS_INVALID',
      `The arguments are ${size} bytes, over the limit of ${maxBytes}. Send smaller arguments.`,
    );
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new Refusal(
      'TOOL_ARGUMENTS_INVALID',
      'The arguments are not valid JSON. Send one JSON object.',
    );
  }
}

async function checkArguments(
  entry: CatalogEntry,
  value: unknown,
  env: ToolCallEnvironment,
): Promise<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Refusal('TOOL_ARGUMENTS_INVALID', 'The arguments must be a JSON object.');
  }
  let outcome: ValidationOutcome;
  try {
    outcome = entry.executor.validateInput
      ? await entry.executor.validateInput(entry.name, value)
      : await validateJsonSchema(entry.inputSchema, value);
  } catch (err) {
    if (env.signal.aborted) throw err;
    throw new Refusal(
      'TOOL_EXECUTION_FAILED',
      `The input schema of '${entry.name}' could not be used: ${describe(err)}.`,
    );
  }
  if (!outcome.success) {
    throw new Refusal(
      'TOOL_ARGUMENTS_INVALID',
      `Invalid arguments for '${entry.name}': ${formatIssues(outcome.issues)}. Fix them and call again.`,
    );
  }
  const out = outcome.value;
  if (typeof out !== 'object' || out === null || Array.isArray(out)) {
    throw new Refusal('TOOL_ARGUMENTS_INVALID', 'The arguments must be a JSON object.');
  }
  return out as Record<string, unknown>;
}

async function runBeforeHooks(
  entry: CatalogEntry,
  initial: Record<string, unknown>,
  ctx: ToolHookContext,
  env: ToolCallEnvironment,
): Promise<Record<string, unknown>> {
  let args = initial;
  for (const hook of env.beforeTool) {
    let answer;
    try {
      answer = await hook({ ...ctx, arguments: args });
    } catch (err) {
      if (env.signal.aborted) throw err;
      denyByHook(env, ctx, `a beforeTool hook failed: ${describe(err)}`);
    }
    if (!answer) continue;
    if ('decision' in answer && answer.decision === 'deny')
      denyByHook(env, ctx, answer.reason ?? 'denied by a beforeTool hook');
    if ('arguments' in answer) {
      const text = safeStringify(answer.arguments);
      if (text === undefined)
        denyByHook(env, ctx, 'a beforeTool hook returned arguments that are not JSON-serializable');
      const rewritten = parseArguments(text, env.maxToolArgumentBytes);
      args = await checkArguments(entry, rewritten, env);
    }
  }
  return args;
}

function denyByHook(env: ToolCallEnvironment, ctx: ToolHookContext, reason: string): never {
  const decision: AuthorizationDecision = {
    decision: 'deny',
    stage: 'hook',
    reason,
    code: 'TOOL_DENIED',
  };
  env.policy.notify(
    {
      kind: 'tool',
      capability: ctx.toolName,
      toolName: ctx.toolName,
      source: ctx.info.source,
      ...(ctx.info.server !== undefined ? { server: ctx.info.server } : {}),
      sessionId: ctx.sessionId,
      runId: ctx.runId,
      callId: ctx.callId,
    },
    decision,
    env.onObserverError,
  );
  emitDecision(
    env,
    { callId: ctx.callId, name: ctx.toolName, argumentsText: '', iteration: ctx.iteration },
    decision,
  );
  throw new Refusal(
    'TOOL_DENIED',
    `The call was denied (${reason}). Do not retry it; choose another approach or ask the user.`,
  );
}

async function execute(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  call: ToolCallRequest,
  env: ToolCallEnvironment,
): Promise<ToolResult> {
  const ctx = {
    signal: env.signal,
    sessionId: env.sessionId,
    runId: env.runId,
    callId: call.callId,
    iteration: call.iteration,
    maxResultBytes: env.maxToolResultBytes,
    reportProgress: (p: ToolProgress) => {
      if (env.signal.aborted || typeof p?.progress !== 'number') return;
      env.emit({
        type: 'tool.progress',
        ...base(env),
        callId: call.callId,
        toolName: entry.name,
        progress: p.progress,
        ...(p.total !== undefined ? { total: p.total } : {}),
        ...(p.message !== undefined ? { message: p.message } : {}),
      });
    },
  };
  try {
    const returned = await raceAbort(
      Promise.resolve().then(() => entry.executor.execute(entry.name, args, ctx)),
      env.signal,
      `Tool '${entry.name}'`,
    );
    return normalizeToolReturn(returned, entry.name);
  } catch (err) {
    if (env.signal.aborted) {
      throw new Refusal(
        'TOOL_OUTCOME_UNKNOWN',
        `The call to '${entry.name}' was interrupted by an abort; it may or may not have taken effect. It was not retried.`,
      );
    }
    if (MusterError.isInstance(err) && err.code.startsWith('TOOL_'))
      throw new Refusal(err.code as ToolErrorCode, err.message);
    throw new Refusal('TOOL_EXECUTION_FAILED', `'${entry.name}' failed: ${describe(err)}`);
  }
}

async function runAfterHooks(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  initial: ToolResult,
  ctx: ToolHookContext,
  env: ToolCallEnvironment,
): Promise<ToolResult> {
  let result = initial;
  for (const hook of env.afterTool) {
    try {
      const answer = await hook({ ...ctx, arguments: args, result });
      if (answer && 'result' in answer) result = normalizeToolReturn(answer.result, entry.name);
    } catch (err) {
      if (env.signal.aborted)
        throw new Refusal(
          'TOOL_OUTCOME_UNKNOWN',
          `The call to '${entry.name}' was interrupted by an abort after it ran.`,
        );
      throw new Refusal(
        'TOOL_EXECUTION_FAILED',
        `An afterTool hook failed, so the result of '${entry.name}' was withheld: ${describe(err)}`,
      );
    }
  }
  return result;
}

function safeStringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
