import type { Tool } from '@modelcontextprotocol/client';
import type { AuthorizationDecision } from '../policy/index.js';
import { formatIssues, validateJsonSchema } from '../tools/index.js';
import type { JsonSchema } from '../tools/index.js';
import type { CallToolResponse } from './api-types.js';
import { StudioHttpError } from './error-response.js';
import type { StudioContext } from './studio-context.js';
import { toolResultView, visibilityOf } from './tool-view.js';

/** One direct call of the studio: which tool, with what, from where. */
export interface StudioToolCall {
  readonly server: string;
  readonly tool: Tool;
  readonly modelName: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Asked by an MCP Apps view (may reach app-only tools, never model-only ones). */
  readonly fromApp: boolean;
  /** Aborts when the request goes away or the studio shuts down. */
  readonly signal: AbortSignal;
}

function decisionView(d: AuthorizationDecision): CallToolResponse['decision'] {
  return {
    decision: d.decision,
    stage: d.stage,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
  };
}

/** Refuses a call its caller may not make under the tool's MCP Apps visibility. */
function checkVisibility(call: StudioToolCall): void {
  const visibility = visibilityOf(call.tool);
  if (!visibility) return;
  const caller = call.fromApp ? 'app' : 'model';
  if (visibility.includes(caller)) return;
  throw new StudioHttpError(
    403,
    'TOOL_DENIED',
    call.fromApp
      ? `'${call.tool.name}' is visible to the model only: an MCP Apps view may not call it.`
      : `'${call.tool.name}' is visible to its MCP Apps view only: call it from the view (fromApp).`,
  );
}

/**
 * Runs one call in the order of a run: the visibility, the arguments against the input
 * schema (400 `TOOL_ARGUMENTS_INVALID` with issues), then the policy (which may wait on the
 * approval queue; a refusal is a 403 with the decision), then the server.
 */
export async function callThroughPolicy(
  ctx: StudioContext,
  call: StudioToolCall,
): Promise<CallToolResponse> {
  const started = performance.now();
  checkVisibility(call);
  const checked = await validateJsonSchema(call.tool.inputSchema as JsonSchema, call.arguments);
  if (!checked.success)
    throw new StudioHttpError(
      400,
      'TOOL_ARGUMENTS_INVALID',
      `Invalid arguments for '${call.tool.name}': ${formatIssues(checked.issues)}. Fix them and call again.`,
      {
        issues: checked.issues.map((i) => ({
          path: i.path.map(String).join('.'),
          message: i.message,
        })),
      },
    );
  const decision = await ctx.policy.authorize(
    {
      kind: 'tool',
      capability: call.modelName,
      toolName: call.modelName,
      source: 'mcp',
      server: call.server,
      originalName: call.tool.name,
      arguments: call.arguments,
      ...(call.tool.annotations ? { annotations: call.tool.annotations } : {}),
      sessionId: 'studio',
      ...(call.fromApp
        ? { runId: 'studio-app', metadata: { via: 'mcp-app-view' } }
        : { runId: 'studio-call' }),
    },
    { signal: call.signal },
  );
  if (decision.decision !== 'allow')
    throw new StudioHttpError(
      403,
      decision.code ?? 'TOOL_DENIED',
      `The policy refused ${call.modelName} (${decision.stage}: ${decision.reason ?? decision.message ?? decision.decision}).`,
      { decision: decisionView(decision) },
    );
  const result = await ctx.agent.mcp.callTool(call.server, call.tool.name, call.arguments, {
    signal: call.signal,
  });
  return {
    decision: decisionView(decision),
    result: toolResultView(result),
    durationMs: Math.round(performance.now() - started),
  };
}
