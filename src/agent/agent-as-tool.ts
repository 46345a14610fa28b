import { MusterError, ToolError, toMusterError } from '../errors/index.js';
import { addUsage, ZERO_USAGE } from '../model/index.js';
import type { Usage } from '../model/index.js';
import { CallParkSignal, callParkingOf, tool, toolAnnotationsShape } from '../tools/index.js';
import type {
  StandardSchemaV1Like,
  Tool,
  ToolAnnotations,
  ToolExecutionContext,
} from '../tools/index.js';
import { budgetOfCall } from './run-budget.js';
import type { RunRequest } from './agent-options.js';
import type { AgentEvent } from './events.js';
import type { SessionStore, Wait } from '../session/index.js';
import { assertValid, isString, optional, shape } from '../util/index.js';
import type { Check } from '../util/index.js';

/** What `agent.asTool()` takes. */
export interface AgentToolOptions {
  /** The tool's model-facing name (`^[A-Za-z0-9_-]{1,64}$`). */
  readonly name: string;
  /** What the calling model reads about the agent: what to ask it for. */
  readonly description: string;
  readonly annotations?: ToolAnnotations;
}

/**
 * What a delegated run needs of an agent. `caller` is the call the run answers: a run whose
 * caller's run has a budget counts into it as it goes (SPEC 15.4).
 */
interface Runnable {
  run(request: RunRequest, caller?: ToolExecutionContext): AsyncIterable<AgentEvent>;
  /** Resumes a parked delegated run (its session's waits all decided or expired). */
  resume?(
    request: RunRequest & { readonly sessionId: string },
    caller?: ToolExecutionContext,
  ): AsyncIterable<AgentEvent>;
  /** The agent's session store: a delegated run parks the root on the same one. */
  readonly store?: SessionStore;
}

/** The input of an agent tool: `{ prompt }`, a non-empty string, nothing else. */
const PROMPT_INPUT: StandardSchemaV1Like<{ prompt: string }> = Object.freeze({
  '~standard': Object.freeze({
    version: 1 as const,
    vendor: 'muster',
    validate: (value: unknown) => {
      const v = value as { prompt?: unknown } | null;
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        return { issues: [{ message: 'must be an object { prompt }' }] };
      const extra = Object.keys(v).filter((k) => k !== 'prompt');
      if (extra.length > 0)
        return { issues: [{ message: `unknown key(s) ${extra.join(', ')}`, path: [extra[0]!] }] };
      if (typeof v.prompt !== 'string' || v.prompt.trim() === '')
        return { issues: [{ message: 'must be a non-empty string', path: ['prompt'] }] };
      return { value: { prompt: v.prompt } };
    },
    jsonSchema: Object.freeze({
      input: () => PROMPT_SCHEMA,
      output: () => PROMPT_SCHEMA,
    }),
  }),
});

const PROMPT_SCHEMA = Object.freeze({
  type: 'object',
  properties: {
    prompt: { type: 'string', minLength: 1, description: 'The task for the agent, in full.' },
  },
  required: ['prompt'],
  additionalProperties: false,
});

const toolOptions = shape({
  name: isString(),
  description: isString(),
  annotations: optional(toolAnnotationsShape),
} satisfies Record<keyof AgentToolOptions, Check>);

/**
 * An agent as a tool another agent's model can call: each call is a delegated run of `agent`
 * (a new session, the call's signal) whose final text is the tool result. The run's events
 * are forwarded into the calling run's stream with their own `runId` and `sessionId`, and its
 * usage counts toward the calling run: as it goes when the calling run has a budget (SPEC 15.4:
 * the delegated run counts into it, and stops when it is spent), else when it ends. A failed run is a `TOOL_EXECUTION_FAILED` result
 * naming the run's code. The call goes through the caller's pipeline like any host tool; the
 * delegated run acts for the calling run's principal.
 */
export function agentAsTool(agent: Runnable, options: AgentToolOptions): Tool {
  assertValid(options, toolOptions, 'asTool options');
  return tool({
    name: options.name,
    description: options.description,
    input: PROMPT_INPUT,
    ...(options.annotations ? { annotations: options.annotations } : {}),
    execute: async ({ prompt }, ctx) => {
      let runId: string | undefined;
      let sessionId: string | undefined;
      let spent: Usage = ZERO_USAGE;
      let answer: string | undefined;
      let parked: readonly Wait[] | undefined;
      const parking = callParkingOf(ctx);
      // the delegated run this call parked on, its waits now decided: continue it first
      const resuming = parking?.childSessionId;
      const traced = ctx.traceContext ? { traceContext: ctx.traceContext } : {};
      // a calling run with a budget counts the delegated run's usage itself, as it goes
      const counted = budgetOfCall(ctx) !== undefined;
      // the delegated run acts for the calling run's user (SPEC 15.4), and so does its resume
      const acting = ctx.principal !== undefined ? { principal: ctx.principal } : {};
      if (resuming !== undefined) {
        // resumed on its own meanwhile (its wait decided directly): its answer is stored
        const child = await agent.store?.get(resuming);
        if (child?.status === 'completed') return child.finalContent ?? '';
      }
      const events =
        resuming !== undefined && agent.resume
          ? agent.resume({ sessionId: resuming, signal: ctx.signal, ...traced, ...acting }, ctx)
          : agent.run({ input: prompt, signal: ctx.signal, ...traced, ...acting }, ctx);
      try {
        for await (const ev of events) {
          if (ev.type === 'session.started' && runId === undefined) {
            runId = ev.runId;
            sessionId = ev.sessionId;
          }
          ctx.run?.forward(ev);
          // the delegated run parked (a resume that found it still waiting has no start)
          if (ev.type === 'session.parked' && ev.sessionId === (sessionId ?? resuming)) {
            sessionId = ev.sessionId;
            parked = ev.waits;
          }
          if (ev.runId !== runId) continue; // a run this one delegated to: already in its usage
          if (ev.type === 'model.completed') spent = addUsage(spent, ev.usage);
          if (ev.type === 'session.completed') {
            spent = ev.usage;
            answer = ev.content;
          }
        }
      } catch (err) {
        const error = toMusterError(err, 'INTERNAL_ERROR', 'The delegated run failed');
        if (resuming !== undefined && error.code === 'SESSION_ALREADY_RUNNING')
          throw new ToolError(
            'TOOL_OUTCOME_UNKNOWN',
            `The delegated run of '${options.name}' (session '${resuming}') is running elsewhere: its answer is not known here. Read that session for it.`,
            { toolName: options.name, cause: error, details: { sessionId: resuming } },
          );
        throw new ToolError(
          'TOOL_EXECUTION_FAILED',
          `The delegated run of '${options.name}' failed [${error.code}]: ${error.message}`,
          {
            toolName: options.name,
            cause: error,
            details: {
              code: error.code,
              ...(runId !== undefined ? { runId } : {}),
              ...(sessionId !== undefined ? { sessionId } : {}),
            },
          },
        );
      } finally {
        if (!counted) ctx.run?.addUsage(spent);
      }
      // a delegated run that parks parks this one (SPEC 15.1) when both keep their sessions
      // in the same store: the root's waits link to the delegated run's
      if (answer === undefined && parked && sessionId !== undefined) {
        if (parking?.canPark && agent.store !== undefined && agent.store === parking.store)
          throw new CallParkSignal({ child: { sessionId, waits: parked } });
        // elsewhere the call fails saying where the waits are: that session is decided and
        // resumed on its own
        throw new ToolError(
          'TOOL_APPROVAL_REQUIRED',
          `The delegated run of '${options.name}' parked on ${parked.map((w) => w.id).join(', ')} in session '${sessionId}': decide them and resume that session; this call did not get an answer.`,
          {
            toolName: options.name,
            details: { sessionId },
          },
        );
      }
      if (answer === undefined)
        throw new MusterError(
          'INTERNAL_ERROR',
          `The delegated run of '${options.name}' ended without an answer.`,
        );
      return answer;
    },
  });
}
