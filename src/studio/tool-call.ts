import type { Tool } from '@modelcontextprotocol/client';
import { mcpAppVisibilityOf } from '../mcp/index.js';
import { checkDirectToolCall, directCallDecision, formatIssues } from '../tools/index.js';
import type { CallToolResultLike } from '../tools/index.js';
import type { CallToolResponse } from './api-types.js';
import { StudioHttpError } from './error-response.js';
import type { StudioContext } from './studio-context.js';
import { archivedResultView } from './tool-view.js';

/** The session whose archive keeps the archived results of the studio's direct calls. */
export const STUDIO_SESSION_ID = 'studio';

/** One direct call of the studio: which tool, with what, from where. */
export interface StudioToolCall {
  readonly server: string;
  readonly tool: Tool;
  readonly modelName: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Asked by an MCP Apps view (may reach app-only tools, never model-only ones). */
  readonly fromApp: boolean;
  /**
   * The page's id of this call: an approval it waits on carries it as `request.callId`, so
   * the page that made the call can point to that approval.
   */
  readonly callId?: string;
  /** Aborts when the request goes away or the studio shuts down. */
  readonly signal: AbortSignal;
}

/** Refuses a call its caller may not make under the tool's MCP Apps visibility. */
function checkVisibility(call: StudioToolCall): void {
  const visibility = mcpAppVisibilityOf(call.tool);
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
 * approval queue; a refusal is a 403 with the decision), then the server. The result gets a
 * run's treatment: projected, and archived in the `studio` session's archive when it is
 * over `mcp.archiveThresholdBytes` or carries media (the answer then has a preview and refs).
 * `durationMs` leaves out the time the call waited for a person's approval, as a run's
 * `tool.completed` does.
 */
export async function callThroughPolicy(
  ctx: StudioContext,
  call: StudioToolCall,
): Promise<CallToolResponse> {
  const started = performance.now();
  let asked: number | undefined;
  checkVisibility(call);
  const check = await checkDirectToolCall(
    ctx.policy,
    {
      ...call,
      sessionId: STUDIO_SESSION_ID,
      // a view's call says so on the approval card
      ...(call.fromApp
        ? { runId: 'studio-app', metadata: { via: 'mcp-app-view' } }
        : { runId: 'studio-call' }),
    },
    { signal: call.signal, onApprovalRequested: () => (asked = performance.now()) },
  );
  const approvalMs = asked === undefined ? 0 : performance.now() - asked;
  if (check.outcome === 'arguments')
    throw new StudioHttpError(
      400,
      'TOOL_ARGUMENTS_INVALID',
      `Invalid arguments for '${call.tool.name}': ${formatIssues(check.issues)}. Fix them and call again.`,
      {
        issues: check.issues.map((i) => ({
          path: i.path.map(String).join('.'),
          message: i.message,
        })),
      },
    );
  const decision = check.decision;
  if (check.outcome === 'refused')
    throw new StudioHttpError(
      403,
      decision.code ?? 'TOOL_DENIED',
      `The policy refused ${call.modelName} (${decision.stage}: ${decision.reason ?? decision.message ?? decision.decision}).`,
      { decision: directCallDecision(decision) },
    );
  const result = await ctx.agent.mcp.callTool(call.server, call.tool.name, call.arguments, {
    signal: call.signal,
  });
  const archived = await ctx.agent.sessions.archiveResult(
    STUDIO_SESSION_ID,
    result as CallToolResultLike,
    {
      toolName: call.modelName,
      callId: `studio-${crypto.randomUUID()}`,
    },
  );
  return {
    decision: directCallDecision(decision),
    result: archivedResultView(result, archived, STUDIO_SESSION_ID),
    durationMs: Math.round(performance.now() - started - approvalMs),
  };
}
