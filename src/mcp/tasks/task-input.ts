import { ToolError } from '../../errors/index.js';
import { toElicitationRequest } from '../handlers/client-setup.js';
import type { InputRequestContext } from '../handlers/client-setup.js';
import type { ParkedInput } from '../../tools/index.js';
import type { ClientRequestHandler } from '../contracts/connection-types.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import { TaskInputParked } from './task-poller.js';
import type { TaskInputAnswerer } from './task-poller.js';

/** What answering one task's input requests needs. */
export interface TaskInputDeps {
  readonly server: string;
  readonly toolName: string;
  /**
   * The request handlers of the server's connections (elicitation, sampling, roots), the
   * ones a request the server sent directly would reach; built only when a task asks.
   */
  readonly handlers: () => readonly ClientRequestHandler[];
  /** The task, named in errors. */
  readonly taskId?: string;
  /** Masks the server's secrets in text it wrote (a method name quoted in an error). */
  readonly redact?: (text: string) => string;
  /** Rounds of new input requests answered before the call gives up (default 10). */
  readonly maxRounds?: number;
  /**
   * True where the run can park (its store keeps waits): an elicitation answered `park`
   * ends the round with {@link TaskInputParked}, the call parks on it.
   */
  readonly canPark?: boolean;
  /** Keys answered before (sent back by a resumed call): never asked again. */
  readonly answered?: readonly string[];
}

/**
 * Answers the `inputRequests` of one task (SEP-2663) through the handlers a direct request
 * of the server would reach: an `elicitation/create` goes through the elicitation handler
 * and its hooks, `sampling/createMessage` through sampling (with its policy), `roots/list`
 * through roots. Keys are unique over a task's life, and a server repeats the outstanding
 * ones on every poll until its `tasks/update` is seen: each key is answered once (a person
 * is asked once), later polls that still carry it send nothing for it. Requests of one poll
 * are answered together. A method no handler answers fails the call (`no-input-handler`); a
 * task that still asks something new after `maxRounds` rounds fails it too
 * (`input-rounds-exceeded`, as a call's own rounds). With `canPark` (a run whose store keeps
 * waits) an elicitation answered `park` ends the round with {@link TaskInputParked}: the
 * call parks, and its resume sends the person's answer with the others.
 */
export function taskInputAnswerer(deps: TaskInputDeps): TaskInputAnswerer {
  const asked = new Set<string>(deps.answered ?? []);
  const redact = deps.redact ?? ((text: string) => text);
  const maxRounds = deps.maxRounds ?? MCP_DEFAULTS.maxInputRounds;
  const facts = {
    server: deps.server,
    ...(deps.taskId !== undefined ? { taskId: deps.taskId } : {}),
  };
  let rounds = 0;
  return async (inputRequests, signal) => {
    const fresh = Object.entries(inputRequests).filter(([key]) => !asked.has(key));
    if (fresh.length === 0) return {};
    if (++rounds > maxRounds)
      throw new ToolError(
        'TOOL_EXECUTION_FAILED',
        `The task of '${redact(deps.toolName)}' on server '${deps.server}' still asked for input after ${maxRounds} rounds.`,
        { toolName: deps.toolName, details: { ...facts, reason: 'input-rounds-exceeded' } },
      );
    const handlers = deps.handlers();
    const ctx: InputRequestContext = { mcpReq: { signal }, canPark: deps.canPark === true };
    for (const [key] of fresh) asked.add(key);
    const answers = await Promise.all(
      fresh.map(async ([key, entry]) => {
        const method = (entry as { method?: unknown } | null)?.method;
        const handler = handlers.find((h) => h.method === method)?.handler;
        if (typeof method !== 'string' || !handler)
          throw new ToolError(
            'TOOL_EXECUTION_FAILED',
            `The task of '${redact(deps.toolName)}' on server '${deps.server}' asked for input Muster has no handler for ('${redact(String(method))}'): give mcp.handlers the matching handler.`,
            { toolName: deps.toolName, details: { ...facts, reason: 'no-input-handler' } },
          );
        const params = (entry as { params?: unknown }).params;
        return [key, await handler({ method, ...(params ? { params } : {}) }, ctx)] as const;
      }),
    );
    const waiting: ParkedInput[] = [];
    for (const [key, answer] of answers) {
      if ((answer as { action?: unknown } | undefined)?.action !== 'park') continue;
      const entry = inputRequests[key] as { params?: Record<string, unknown> } | undefined;
      const request = toElicitationRequest(deps.server, entry?.params ?? {});
      waiting.push({
        key,
        mode: request.mode,
        message: request.message,
        ...(request.requestedSchema ? { requestedSchema: request.requestedSchema } : {}),
        ...(request.url !== undefined ? { url: request.url } : {}),
      });
    }
    if (waiting.length > 0) {
      const parked = new Set(waiting.map((w) => w.key));
      throw new TaskInputParked({
        requests: waiting,
        answered: Object.fromEntries(answers.filter(([key]) => !parked.has(key))),
      });
    }
    return Object.fromEntries(answers);
  };
}
