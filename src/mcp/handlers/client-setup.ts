import type { ClientCapabilities, CreateMessageRequestParams } from '@modelcontextprotocol/client';
import type { Usage } from '../../model/index.js';
import type { AuthorizationDecision, AuthorizationRequest } from '../../policy/index.js';
import { deriveCapabilities } from '../config/client-capabilities.js';
import { answerElicitation, answersElicitation } from './elicitation-handler.js';
import type {
  McpElicitationHooks,
  McpElicitationRequest,
  McpHandlers,
  McpRequestOrigin,
} from '../contracts/handler-types.js';
import { McpError } from '../../errors/index.js';
import type { CancelledCall, InFlightCalls } from './in-flight-calls.js';
import { deliverLog } from './logging-handler.js';
import type { ClientRequestHandler } from '../client/mcp-connection.js';
import { mcpEvent } from '../contracts/mcp-defaults.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import type { NotificationHub } from '../client/notification-hub.js';
import { listRoots } from './roots-handler.js';
import { answerSampling } from './sampling-handler.js';
import type { AgentSampler } from './sampling-handler.js';

/** Defaults of the client-side handlers. */
export const HANDLER_DEFAULTS = Object.freeze({
  handlerTimeoutMs: 60_000,
  samplingMaxTokens: 4096,
});

/** What the client side of every connection shares. */
export interface ClientFeatures {
  readonly handlers?: McpHandlers;
  /** `mcp.clientExtensions`: advertised as `capabilities.extensions`. */
  readonly extensions?: Readonly<Record<string, object>>;
  readonly hooks?: McpElicitationHooks;
  readonly inFlight: InFlightCalls;
  readonly hub: NotificationHub;
  /** Events of requests that arrive during no call. */
  readonly background: Emit;
  /** Authorization outside any run (`mcp_sampling:` requests that arrive during no call). */
  readonly authorize: (request: AuthorizationRequest) => Promise<AuthorizationDecision>;
  readonly agentSampler?: AgentSampler;
  readonly handlerTimeoutMs?: number;
  readonly samplingMaxTokens?: number;
  readonly lifetime: AbortSignal;
}

/** The capabilities, request handlers and notification sink of one server's connections. */
export interface ClientSetup {
  readonly capabilities: ClientCapabilities;
  readonly handlers: readonly ClientRequestHandler[];
  readonly onNotification: (method: string, params: unknown) => void;
}

/**
 * Builds what a connection to `server` declares and installs: capabilities derived from the
 * handlers given, one request handler per feature (each attributed to the call in flight on
 * that connection, if any), and the notifications routed to `listen()`, logging and events.
 * With `principal`, the setup of that principal's own connection (SPEC 15.4): its requests
 * are attributed among that principal's calls only, and its requests and notifications name
 * the principal.
 */
export function clientSetup(server: string, f: ClientFeatures, principal?: string): ClientSetup {
  const h = f.handlers ?? {};
  const timeoutMs = f.handlerTimeoutMs ?? HANDLER_DEFAULTS.handlerTimeoutMs;
  const who = principal === undefined ? {} : { principal };
  const attribution = (signal?: AbortSignal) => {
    const call = f.inFlight.attributed(server, principal);
    const signals = [f.lifetime, ...(call ? [call.signal] : []), ...(signal ? [signal] : [])];
    const origin: McpRequestOrigin = {
      server,
      ...who,
      signal: AbortSignal.any(signals),
      ...(call ? { sessionId: call.sessionId, runId: call.runId, callId: call.callId } : {}),
    };
    const run = call?.run;
    if (!run) return { origin, emit: f.background, authorize: f.authorize };
    const addUsage = (usage: Usage) => run.addUsage(usage, true);
    return { origin, emit: run.emit, authorize: run.authorize, addUsage };
  };
  const handlers: ClientRequestHandler[] = [];
  const roots = h.roots;
  if (roots !== undefined)
    handlers.push({
      method: 'roots/list',
      handler: (_request, ctx) =>
        listRoots(roots, server, timeoutMs, attribution(signalOf(ctx)).origin.signal),
    });
  const sampling = h.sampling;
  if (sampling !== undefined)
    handlers.push({
      method: 'sampling/createMessage',
      handler: (request, ctx) => {
        // a server that ignored its call's cancel: nobody answers for that run any more
        const cancelled = f.inFlight.cancelled(server, principal);
        if (cancelled) throw cancelledSampling(server, cancelled);
        const { origin, emit, authorize, addUsage } = attribution(signalOf(ctx));
        return answerSampling((request as { params: CreateMessageRequestParams }).params, origin, {
          handler: sampling,
          ...(addUsage ? { addUsage } : {}),
          ...(f.agentSampler ? { agent: f.agentSampler } : {}),
          authorize,
          maxTokens: f.samplingMaxTokens ?? HANDLER_DEFAULTS.samplingMaxTokens,
          timeoutMs,
          emit,
        });
      },
    });
  const elicitation = h.elicitation;
  // the elicitation hooks answer without a handler too
  const elicits = answersElicitation(elicitation, f.hooks);
  if (elicits)
    handlers.push({
      method: 'elicitation/create',
      handler: (request, ctx) => {
        const { origin, emit } = attribution(signalOf(ctx));
        const p = (request as { params: Record<string, unknown> }).params;
        return answerElicitation(toElicitationRequest(server, p), origin, {
          ...(elicitation ? { handler: elicitation } : {}),
          hooks: f.hooks ?? {},
          timeoutMs,
          emit,
          ...(parkable(ctx) ? { canPark: true } : {}),
        });
      },
    });
  return {
    capabilities: deriveCapabilities(f.handlers, f.extensions, elicits),
    handlers,
    onNotification: (method, params) => {
      f.hub.publish({
        server,
        ...who,
        method,
        ...(params && typeof params === 'object'
          ? { params: params as Record<string, unknown> }
          : {}),
      });
      if (method === 'notifications/message' && h.logging)
        deliverLog(server, h.logging, params, principal);
      if (method === 'notifications/elicitation/complete') {
        const id = (params as { elicitationId?: unknown } | undefined)?.elicitationId;
        attribution().emit(
          mcpEvent({
            type: 'elicitation.completed',
            server,
            via: 'notification',
            ...(typeof id === 'string' ? { elicitationId: id } : {}),
          }),
        );
      }
    },
  };
}

/** An elicitation request as the host's handler sees it. */
export function toElicitationRequest(
  server: string,
  p: Readonly<Record<string, unknown>>,
): McpElicitationRequest {
  const mode = p['mode'] === 'url' ? 'url' : 'form';
  return {
    server,
    mode,
    message: typeof p['message'] === 'string' ? p['message'] : '',
    ...(mode === 'form' && p['requestedSchema']
      ? { requestedSchema: p['requestedSchema'] as Record<string, unknown> }
      : {}),
    ...(mode === 'url' && typeof p['url'] === 'string' ? { url: p['url'] } : {}),
    ...(typeof p['elicitationId'] === 'string' ? { elicitationId: p['elicitationId'] } : {}),
  };
}

/**
 * The context Muster passes when it answers an input request of its own round (see
 * `answerInputRound`): `canPark` lets an elicitation park the run.
 */
export interface InputRequestContext {
  readonly mcpReq: { readonly signal: AbortSignal };
  readonly canPark: boolean;
}

/**
 * The refusal of a sampling request that came from a call Muster cancelled (its run aborted,
 * or its budget spent, SPEC 15.4): no run answers for it, and it is not background work.
 */
function cancelledSampling(server: string, call: CancelledCall): McpError {
  return new McpError(
    'MCP_OPERATION_FAILED',
    `Sampling for '${server}' was refused: the call it arrived during (${call.callId} of session ${call.sessionId}) was cancelled, its run aborted or out of budget, so no run answers for it. The server should stop when its call is cancelled.`,
    { server, details: { server, code: 'ABORTED' } },
  );
}

function parkable(ctx: unknown): boolean {
  return (ctx as Partial<InputRequestContext> | undefined)?.canPark === true;
}

function signalOf(ctx: unknown): AbortSignal | undefined {
  const s = (ctx as { mcpReq?: { signal?: unknown } } | undefined)?.mcpReq?.signal;
  return s instanceof AbortSignal ? s : undefined;
}
