import type { CreateMessageRequestParams, CreateMessageResult } from '@modelcontextprotocol/client';
import { McpError } from '../../errors/index.js';
import type { Usage } from '../../model/index.js';
import type { AuthorizationDecision, AuthorizationRequest } from '../../policy/index.js';
import { guardHandler } from './handler-guard.js';
import type { McpRequestOrigin, McpSamplingHandler } from '../contracts/handler-types.js';
import { mcpEvent } from '../contracts/mcp-defaults.js';
import type { Emit } from '../contracts/mcp-defaults.js';

/** The agent's own model answering a sampling request (`mcp.handlers.sampling: 'agent'`). */
export type AgentSampler = (
  request: CreateMessageRequestParams,
  origin: AgentSamplingOrigin,
) => Promise<CreateMessageResult>;

/** Where a request the agent's model answers came from, and where its usage counts. */
export interface AgentSamplingOrigin extends McpRequestOrigin {
  readonly maxTokens: number;
  /** Counts the answer's usage toward the run the request arrived during (absent: none). */
  readonly addUsage?: (usage: Usage) => void;
}

/** What answering one sampling request needs. */
export interface SamplingDeps {
  readonly handler: 'agent' | McpSamplingHandler;
  /** Required for `'agent'`; the agent gives it. */
  readonly agent?: AgentSampler;
  readonly authorize: (request: AuthorizationRequest) => Promise<AuthorizationDecision>;
  /** `mcp.samplingMaxTokens`: the request's `maxTokens` is lowered to it. */
  readonly maxTokens: number;
  readonly timeoutMs: number;
  readonly emit: Emit;
  /** Counts the agent model's usage toward the run the request arrived during. */
  readonly addUsage?: (usage: Usage) => void;
}

/**
 * Answers `sampling/createMessage`. With `'agent'` the request first passes the policy as
 * `mcp_sampling:<server>` (the approver sees the request; no approver denies), then the
 * agent's model answers with at most `mcp.samplingMaxTokens`. The event carries no content.
 */
export async function answerSampling(
  params: CreateMessageRequestParams,
  origin: McpRequestOrigin,
  deps: SamplingDeps,
): Promise<CreateMessageResult> {
  const maxTokens = Math.min(params.maxTokens, deps.maxTokens);
  const bounded = { ...params, maxTokens };
  deps.emit(
    mcpEvent({
      type: 'sampling.requested',
      server: origin.server,
      handler: deps.handler === 'agent' ? 'agent' : 'host',
      maxTokens,
      ...(origin.callId !== undefined ? { callId: origin.callId } : {}),
    }),
  );
  const what = `The sampling handler for '${origin.server}'`;
  if (deps.handler !== 'agent')
    return guardHandler(what, deps.timeoutMs, origin.signal, (signal) =>
      (deps.handler as McpSamplingHandler)(bounded, { ...origin, signal }),
    );
  const decision = await deps.authorize({
    kind: 'sampling',
    capability: `mcp_sampling:${origin.server}`,
    server: origin.server,
    source: 'mcp',
    arguments: bounded as unknown as Record<string, unknown>,
    sessionId: origin.sessionId ?? '',
    runId: origin.runId ?? '',
    ...(origin.callId !== undefined ? { callId: origin.callId } : {}),
    // outside a run too, a request on a principal's own connection is that principal's
    ...(origin.principal !== undefined ? { principal: origin.principal } : {}),
  });
  if (decision.decision !== 'allow')
    throw new McpError(
      'MCP_OPERATION_FAILED',
      `Sampling for '${origin.server}' was not authorized (${decision.reason ?? decision.stage}): allow mcp_sampling:${origin.server} or approve it.`,
      {
        server: origin.server,
        details: { server: origin.server, code: decision.code ?? 'TOOL_DENIED' },
      },
    );
  const agent = deps.agent;
  if (!agent)
    throw new McpError(
      'MCP_OPERATION_FAILED',
      `mcp.handlers.sampling is 'agent', but no agent model is available here: pass a sampling function.`,
      { server: origin.server },
    );
  return guardHandler(what, deps.timeoutMs, origin.signal, (signal) =>
    agent(bounded, {
      ...origin,
      signal,
      maxTokens,
      ...(deps.addUsage ? { addUsage: deps.addUsage } : {}),
    }),
  );
}
