import type { CallToolResult } from '@modelcontextprotocol/client';
import { ToolError } from '../../errors/index.js';
import { CallParkSignal } from '../../tools/index.js';
import type { CallParking, ParkedInput } from '../../tools/index.js';
import { toElicitationRequest } from '../handlers/client-setup.js';
import type { InputRequestContext } from '../handlers/client-setup.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import type {
  CallRound,
  ClientRequestHandler,
  InputRequiredRound,
} from '../contracts/connection-types.js';

/** Rounds of one call before Muster gives up, as the official client's driver (10). */
export const MAX_INPUT_ROUNDS = MCP_DEFAULTS.maxInputRounds;

/** What answering a call's `input_required` rounds needs. */
export interface InputRoundsDeps {
  readonly server: string;
  readonly toolName: string;
  /** Sends one round of the call (the first, or a retry with the previous answers). */
  readonly send: (round: CallRound) => Promise<CallToolResult | InputRequiredRound>;
  /**
   * The handlers of the server's connections (elicitation, sampling, roots), built only when
   * the server asks for input (most calls never do).
   */
  readonly handlers: () => readonly ClientRequestHandler[];
  readonly signal: AbortSignal;
  /** `mcp.maxResponseBytes`: a `requestState` larger than this is refused, never parked. */
  readonly maxStateBytes: number;
}

/**
 * Runs a call whose `input_required` rounds Muster answers itself (2026-07-28), because a
 * person may answer later: the client's own driver answers in process only. Each round's
 * input requests go to the same handlers the client would use; an elicitation answered
 * `park` parks the call (`CallParkSignal`) with the round's `requestState`, the requests
 * that wait and the answers already given. A resumed call starts with the stored answers, so
 * the server sees exactly one retry for them. The official client sends every round.
 */
export async function callWithInputRounds(
  deps: InputRoundsDeps,
  parking: CallParking,
): Promise<CallToolResult> {
  const resumed = parking.resumption;
  let round: CallRound = resumed
    ? {
        inputResponses: resumed.inputResponses,
        ...(resumed.requestState !== undefined ? { requestState: resumed.requestState } : {}),
      }
    : {};
  for (let rounds = 0; ; rounds++) {
    const result = await deps.send(round);
    if (!isInputRequired(result)) return result;
    if (rounds >= MAX_INPUT_ROUNDS)
      throw failed(
        deps,
        `it still asked for input after ${MAX_INPUT_ROUNDS} rounds`,
        'input-rounds-exceeded',
      );
    const state = result.requestState;
    if (state !== undefined && Buffer.byteLength(state) > deps.maxStateBytes)
      throw failed(
        deps,
        `its requestState of ${Buffer.byteLength(state)} bytes is over mcp.maxResponseBytes (${deps.maxStateBytes}); nothing was parked`,
        'input-state-too-large',
      );
    const answers = await answerRound(deps, result, parking.canPark);
    const waiting: ParkedInput[] = [];
    const answered: Record<string, unknown> = {};
    for (const [key, { entry, answer }] of answers) {
      if ((answer as { action?: unknown } | undefined)?.action === 'park') {
        const p = (entry as { params?: Record<string, unknown> }).params ?? {};
        const request = toElicitationRequest(deps.server, p);
        waiting.push({
          key,
          mode: request.mode,
          message: request.message,
          ...(request.requestedSchema ? { requestedSchema: request.requestedSchema } : {}),
          ...(request.url !== undefined ? { url: request.url } : {}),
        });
      } else answered[key] = answer;
    }
    if (waiting.length > 0)
      throw new CallParkSignal({
        input: {
          ...(state !== undefined ? { requestState: state } : {}),
          requests: waiting,
          answered,
        },
      });
    round = { inputResponses: answered, ...(state !== undefined ? { requestState: state } : {}) };
  }
}

/** True for an `input_required` answer to a round. */
export function isInputRequired(value: unknown): value is InputRequiredRound {
  return (value as { resultType?: unknown } | null)?.resultType === 'input_required';
}

/** Answers every input request of a round at once, through the server's handlers. */
async function answerRound(
  deps: InputRoundsDeps,
  result: InputRequiredRound,
  canPark: boolean,
): Promise<Map<string, { entry: unknown; answer: unknown }>> {
  const entries = Object.entries(result.inputRequests ?? {});
  const ctx: InputRequestContext = { mcpReq: { signal: deps.signal }, canPark };
  const handlers = deps.handlers();
  const answers = await Promise.all(
    entries.map(async ([key, entry]) => {
      const method = (entry as { method?: unknown } | null)?.method;
      const handler = handlers.find((h) => h.method === method)?.handler;
      if (typeof method !== 'string' || !handler)
        throw failed(
          deps,
          `it asked for input Muster has no handler for ('${String(method)}'): give mcp.handlers the matching handler`,
          'no-input-handler',
        );
      const params = (entry as { params?: unknown }).params;
      const answer = await handler({ method, ...(params ? { params } : {}) }, ctx);
      return [key, { entry, answer }] as const;
    }),
  );
  return new Map(answers);
}

function failed(
  deps: InputRoundsDeps,
  why: string,
  reason: 'input-state-too-large' | 'input-rounds-exceeded' | 'no-input-handler',
): ToolError {
  return new ToolError(
    'TOOL_EXECUTION_FAILED',
    `'${deps.toolName}' on server '${deps.server}' failed: ${why}.`,
    { toolName: deps.toolName, details: { server: deps.server, reason } },
  );
}
