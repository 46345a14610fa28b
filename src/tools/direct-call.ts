// One tool call made outside a run (`muster mcp call`, the studio's Tools page): the same
// checks, in the same order, as a run's pipeline, for callers that map failures to their own
// errors.
import { ToolError } from '../errors/index.js';
import type {
  AuthorizationDecision,
  AuthorizeOptions,
  PolicyToolAnnotations,
  ToolPolicy,
} from '../policy/index.js';
import { dataDepth, MAX_DATA_DEPTH } from '../util/index.js';
import { validateJsonSchema } from './json-schema-validator.js';
import { plainMcpToolName } from './naming.js';
import type { JsonSchema, ValidationIssue, ValidationOutcome } from './tool-types.js';

/** A policy decision as a direct call reports it: what, where, and why. */
export interface DirectCallDecision {
  readonly decision: AuthorizationDecision['decision'];
  readonly stage: string;
  readonly reason?: string;
}

/** The MCP tool a direct call names, as its server listed it. */
export interface DirectCallTool {
  readonly name: string;
  readonly inputSchema: unknown;
  readonly annotations?: PolicyToolAnnotations;
}

/** What {@link checkDirectToolCall} checks. */
export interface DirectToolCall {
  readonly server: string;
  readonly tool: DirectCallTool;
  /** The model-facing name ({@link mcpModelNameOf}). */
  readonly modelName: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The ids the policy is told (a direct call has no run: the caller names one). */
  readonly sessionId: string;
  readonly runId: string;
  /** The caller's id of this call, given to rules and approvers as `callId` (a page's, say). */
  readonly callId?: string;
  /** Safe metadata for rules and approvers (who asked, e.g. an MCP Apps view). */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/**
 * How the checks ended: the arguments failed the input schema (`arguments`, with the
 * issues), the policy did not allow the call (`refused`, with its decision), or the call may
 * be sent (`allowed`).
 */
export type DirectCallCheck =
  | { readonly outcome: 'arguments'; readonly issues: readonly ValidationIssue[] }
  | { readonly outcome: 'refused'; readonly decision: AuthorizationDecision }
  | { readonly outcome: 'allowed'; readonly decision: AuthorizationDecision };

/** A decision without its internals (rule ids, codes), for output. */
export function directCallDecision(d: AuthorizationDecision): DirectCallDecision {
  return {
    decision: d.decision,
    stage: d.stage,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
  };
}

/**
 * The model-facing name of a server's tool: the one its listing was given (`tools` is the
 * server's status listing), else the plain `mcp__<server>__<tool>`.
 */
export function mcpModelNameOf(
  tools: readonly { readonly name: string; readonly originalName: string }[] | undefined,
  server: string,
  tool: string,
): string {
  return tools?.find((t) => t.originalName === tool)?.name ?? plainMcpToolName(server, tool);
}

/**
 * Checks a direct call in the order of a run: the arguments against the tool's input schema
 * first (arguments nested deeper than `MAX_DATA_DEPTH` are refused before any walk; its
 * patterns under RE2, as in a run), then the policy (which may wait on an approver, bounded
 * by `options.signal`). Never throws for a refusal: the caller maps each outcome to its own
 * error. Throws `TOOL_EXECUTION_FAILED` when the schema cannot be used (an invalid pattern,
 * or one RE2 cannot run), as a run refuses the call.
 */
export async function checkDirectToolCall(
  policy: Pick<ToolPolicy, 'authorize'>,
  call: DirectToolCall,
  options: AuthorizeOptions,
): Promise<DirectCallCheck> {
  if (dataDepth(call.arguments) > MAX_DATA_DEPTH)
    return {
      outcome: 'arguments',
      issues: [
        {
          path: [],
          message: `the arguments nest deeper than ${MAX_DATA_DEPTH} levels of objects and arrays`,
        },
      ],
    };
  let checked: ValidationOutcome;
  try {
    checked = await validateJsonSchema(call.tool.inputSchema as JsonSchema, call.arguments, 're2');
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ToolError(
      'TOOL_EXECUTION_FAILED',
      `The input schema of '${call.modelName}' could not be used: ${why}.`,
      { toolName: call.modelName, cause: err },
    );
  }
  if (!checked.success) return { outcome: 'arguments', issues: checked.issues };
  const decision = await policy.authorize(
    {
      kind: 'tool',
      capability: call.modelName,
      toolName: call.modelName,
      source: 'mcp',
      server: call.server,
      originalName: call.tool.name,
      arguments: call.arguments,
      ...(call.tool.annotations ? { annotations: call.tool.annotations } : {}),
      sessionId: call.sessionId,
      runId: call.runId,
      ...(call.callId === undefined ? {} : { callId: call.callId }),
      ...(call.metadata === undefined ? {} : { metadata: call.metadata }),
    },
    // a direct call has no run to park: an approver's park denies it
    { ...options, canPark: false },
  );
  return { outcome: decision.decision === 'allow' ? 'allowed' : 'refused', decision };
}
