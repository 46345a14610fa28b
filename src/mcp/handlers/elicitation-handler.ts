import { McpError } from '../../errors/index.js';
import { formatIssues, validateJsonSchema } from '../../tools/index.js';
import { guardHandler } from './handler-guard.js';
import { isLoopbackHost } from '../../util/index.js';
import type {
  McpElicitationAnswer,
  McpElicitationHandler,
  McpElicitationHooks,
  McpElicitationRequest,
  McpRequestOrigin,
} from '../contracts/handler-types.js';
import { mcpEvent } from '../contracts/mcp-defaults.js';
import type { Emit } from '../contracts/mcp-defaults.js';

/** What answering one elicitation needs. */
export interface ElicitationDeps {
  /** `mcp.handlers.elicitation`; without it, what `onElicitation` leaves open is `cancel`. */
  readonly handler?: McpElicitationHandler;
  readonly hooks: McpElicitationHooks;
  readonly timeoutMs: number;
  readonly emit: Emit;
  /**
   * True for an input request of an `input_required` result in a run that can park: a
   * `park` answer is returned as it is (the run parks on it) instead of becoming `cancel`.
   */
  readonly canPark?: boolean;
}

/**
 * True when elicitations are answered at all: by `mcp.handlers.elicitation`, or by the
 * elicitation hooks alone (the client then declares the capability too).
 */
export function answersElicitation(
  handler: McpElicitationHandler | undefined,
  hooks: McpElicitationHooks | undefined,
): boolean {
  return (
    handler !== undefined ||
    hooks?.onElicitation !== undefined ||
    hooks?.onElicitationResult !== undefined
  );
}

/**
 * Answers one elicitation: `onElicitation` may answer first, else the handler (with no
 * handler: `cancel`, nobody chose); then `onElicitationResult` may rewrite or block the
 * answer. A form answer gets the schema's defaults for fields left out (SEP-1034) and must
 * then match `requestedSchema`, or it is refused before it reaches the server. A URL must be
 * `https:` (or loopback `http:`); Muster hands it to the host and never opens it. A hook or
 * handler that throws answers the server with a generic error: its message stays with the
 * host (kept as the error's `cause`). Events carry no answer content.
 */
export async function answerElicitation(
  request: McpElicitationRequest,
  origin: McpRequestOrigin,
  deps: ElicitationDeps,
): Promise<McpElicitationAnswer> {
  if (request.mode === 'url') checkElicitationUrl(request.server, request.url);
  const ids = {
    server: request.server,
    ...(request.elicitationId !== undefined ? { elicitationId: request.elicitationId } : {}),
    ...(origin.callId !== undefined ? { callId: origin.callId } : {}),
  };
  deps.emit(mcpEvent({ type: 'elicitation.requested', mode: request.mode, ...ids }));
  const what = `The elicitation handler for '${request.server}'`;
  const handler = deps.handler;
  let answer = await guardHandler(what, deps.timeoutMs, origin.signal, (signal) =>
    hostCall(request.server, async () => {
      const early = await deps.hooks.onElicitation?.(request, { ...origin, signal });
      if (early !== undefined) return early;
      return handler ? handler(request, { ...origin, signal }) : { action: 'cancel' as const };
    }),
  );
  const hook = deps.hooks.onElicitationResult;
  const after =
    hook &&
    (await guardHandler(
      `The onElicitationResult hook for '${request.server}'`,
      deps.timeoutMs,
      origin.signal,
      () => hostCall(request.server, () => hook(request, answer, origin)),
    ));
  if (after === false) answer = { action: 'decline' };
  else if (after) answer = after;
  // an input request of a run that can park parks it; an in-flight elicitation/create cannot
  // (the server waits on the open request): there `park` answers it as `cancel` (SPEC 15.1)
  if (answer?.action === 'park' && deps.canPark) return { action: 'park' };
  if (answer?.action === 'park') answer = { action: 'cancel' };
  const final = await checkAnswer(request, answer);
  deps.emit(
    mcpEvent({ type: 'elicitation.completed', via: 'answer', action: final.action, ...ids }),
  );
  return final;
}

/** Applies the schema's top-level defaults, then validates an accepted form answer. */
async function checkAnswer(
  request: McpElicitationRequest,
  answer: McpElicitationAnswer,
): Promise<McpElicitationAnswer> {
  if (!['accept', 'decline', 'cancel'].includes(answer?.action))
    throw refusal(request.server, `its action must be 'accept', 'decline' or 'cancel'`);
  if (answer.action !== 'accept' || request.mode !== 'form') return { action: answer.action };
  const schema = request.requestedSchema ?? { type: 'object' };
  const content = { ...withDefaults(schema, answer.content ?? {}) };
  // the server wrote the schema: its patterns run under RE2, and one RE2 cannot run refuses
  const outcome = await validateJsonSchema(schema, content, 're2').catch((err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    throw refusal(request.server, `its requested schema could not be used: ${why}`);
  });
  if (!outcome.success)
    throw refusal(
      request.server,
      `it does not match the requested schema: ${formatIssues(outcome.issues)}`,
    );
  return { action: 'accept', content };
}

function withDefaults(
  schema: Readonly<Record<string, unknown>>,
  content: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...content };
  const props = (schema['properties'] ?? {}) as Record<string, { default?: unknown }>;
  for (const [key, prop] of Object.entries(props))
    if (!(key in out) && prop && 'default' in prop) out[key] = prop.default;
  return out;
}

/** Refuses a URL that is not `https:` or loopback `http:` (the server is answered with an error). */
export function checkElicitationUrl(server: string, url: string | undefined): void {
  let parsed: URL | undefined;
  try {
    parsed = url ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  const loopback = parsed !== undefined && isLoopbackHost(parsed.hostname);
  const ok = parsed?.protocol === 'https:' || (parsed?.protocol === 'http:' && loopback);
  if (!ok)
    throw new McpError(
      'MCP_OPERATION_FAILED',
      `Server '${server}' asked the user to open a URL that is not https (or loopback http): it was refused and not shown.`,
      { server, details: { server, reason: 'unsafe-url' } },
    );
}

/**
 * Runs a host hook or handler: whatever it throws becomes a generic error, the one the server
 * is answered with, so the host's message (which may hold anything) never reaches it.
 */
async function hostCall<T>(server: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw new McpError('MCP_OPERATION_FAILED', 'The client could not answer this elicitation.', {
      server,
      cause: err,
      details: { server },
    });
  }
}

function refusal(server: string, why: string): McpError {
  return new McpError(
    'MCP_OPERATION_FAILED',
    `The answer to the elicitation of '${server}' was refused before it reached the server: ${why}.`,
    { server, details: { server, reason: 'invalid-answer' } },
  );
}
