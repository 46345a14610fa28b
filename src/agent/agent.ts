import { taskPollDelayMs } from '../mcp/index.js';
import type { McpFacade } from '../mcp/index.js';
import type { Usage } from '../model/index.js';
import type { Tool, ToolExecutionContext } from '../tools/index.js';
import { newId } from '../util/index.js';
import type { AgentOptions, RunRequest, SendResult } from './agent-options.js';
import { agentAsTool } from './agent-as-tool.js';
import type { AgentToolOptions } from './agent-as-tool.js';
import { AgentRun } from './agent-run.js';
import { AgentRuntime } from './agent-runtime.js';
import type { AgentScope } from './agent-scope.js';
import { agentSessions } from './agent-sessions.js';
import type { AgentSessions } from './agent-sessions.js';
import { sendResult } from './send-result.js';
import type { OutputOption, OutputValue } from './output/index.js';
import type { AgentEvent } from './events.js';
import { ChildRuntime } from './child-runtime.js';
import { validateChildOptions } from './child-options.js';
import type { ChildAgentOptions } from './child-options.js';
import { validateAgentOptions, validateSendOptions } from './validate-options.js';
import { decideWait } from './wait-decisions.js';
import { steerSession } from './steering.js';
import { DEFAULT_SESSION_LEASE_MS } from './session-claim.js';
import type { DecideOptions, SessionStore, Wait, WaitDecision } from '../session/index.js';

/**
 * The key under which `child()` hands a child agent its runtime: a child is an `Agent` over a
 * runtime of its own. Not exported, so no caller's options can carry one.
 */
const ADOPT = Symbol('muster.agent.adopt');

/** Reads an agent's session store: filled once, by the class's static block below. */
const storeReader: { read?: (agent: Agent) => SessionStore } = {};

/** Reads an agent's options: filled once, by the class's static block below. */
const optionsReader: { read?: (agent: Agent) => AgentOptions } = {};

/** Starts a run that only creates its session: filled once, by the class's static block below. */
const newSessionRunner: {
  run?: (agent: Agent, request: RunRequest) => AsyncIterable<AgentEvent>;
} = {};

/** The options `child()` constructs a child agent with. */
interface AdoptingOptions extends AgentOptions {
  readonly [ADOPT]: AgentScope;
}

/**
 * The agent: a model, tool sources, a policy and a session store, running the model/tool loop.
 * Constructing one does no I/O.
 *
 * @example
 * ```ts
 * const agent = createAgent({ model, tools: [add], policy: { allow: ['add'] } });
 * for await (const ev of agent.run({ input: 'What is 2 + 3?' })) console.log(ev.type);
 * await agent.close();
 * ```
 */
export class Agent {
  static {
    storeReader.read = (agent) => agent.#runtime.store;
    optionsReader.read = (agent) => agent.#runtime.options;
    newSessionRunner.run = (agent, request) => agent.#runEvents(request, { createOnly: true });
  }

  readonly #runtime: AgentScope;
  /** Read access to sessions. */
  readonly sessions: AgentSessions;
  /** The MCP server registry (SPEC section 7). */
  readonly mcp: McpFacade;

  constructor(options: AgentOptions = {}) {
    const runtime =
      (options as Partial<AdoptingOptions> | null | undefined)?.[ADOPT] ??
      new AgentRuntime(validateAgentOptions(options));
    this.#runtime = runtime;
    this.mcp = runtime.mcp;
    this.sessions = agentSessions(runtime);
  }

  /**
   * Runs the agent once. Yields events as they happen; on failure yields `session.failed`
   * and then throws the same error. Breaking out of the loop aborts the run.
   */
  run(request: RunRequest): AsyncIterable<AgentEvent> {
    return this.#runEvents(request);
  }

  /**
   * Continues a session whose run died (its process crashed or lost its lease; status
   * `running`), on any replica sharing the store: calls that were in flight are reported to
   * the model as `TOOL_OUTCOME_UNKNOWN` (never replayed, unless `mcp.replay: 'idempotent'` and
   * the call's MCP tool is annotated idempotent or read-only: then it is sent once more) and
   * the run goes on. Yields events
   * with the same failure rules as `run()`; fails with `SESSION_ALREADY_RUNNING` while the
   * session's lease is live.
   */
  resume(
    sessionId: string,
    options: Omit<RunRequest, 'input' | 'inputContent' | 'sessionId'> = {},
  ): AsyncIterable<AgentEvent> {
    return this.#runEvents(options, { resume: true, sessionId });
  }

  /**
   * Runs to the end and returns the final text with every event. With `output`, `output` of
   * the result is the validated typed answer, typed by the schema (SPEC 15.4).
   */
  async send<const O extends OutputOption | undefined = undefined>(
    text: string,
    options: Omit<RunRequest, 'input' | 'inputContent' | 'output'> & { readonly output?: O } = {},
  ): Promise<SendResult<OutputValue<O>>> {
    validateSendOptions(options ?? {});
    const events: AgentEvent[] = [];
    for await (const ev of this.run({ ...options, input: text })) events.push(ev);
    return sendResult(events) as SendResult<OutputValue<O>>;
  }

  /** Prepares every tool source now (the first run does it otherwise). Returns its events. */
  async initialize(): Promise<AgentEvent[]> {
    const runtime = this.#runtime;
    runtime.assertOpen();
    return runtime.track(
      (async () => {
        const events: AgentEvent[] = [];
        await runtime.ensureInitialized();
        await runtime.tracing?.prepare();
        const ctx = runtime.outsideRunContext('initialize', (ev) => {
          events.push(ev);
          runtime.background(ev);
        });
        for (const e of runtime.executors) if (e.prepareRun) await e.prepareRun(ctx);
        return events;
      })(),
    );
  }

  /**
   * A narrower agent borrowing this one's tool sources (no new process, connection or
   * discovery): its policy is asked before this one's, it sees at most what this one shows,
   * and closing it leaves this agent's connections open (SPEC section 3).
   */
  child(options: ChildAgentOptions = {}): Agent {
    const adopting: AdoptingOptions = {
      [ADOPT]: new ChildRuntime(this.#runtime, validateChildOptions(options)),
    };
    return new Agent(adopting);
  }

  /**
   * This agent as a tool another agent's model can call: a delegated run per call, named in
   * traces after the tool when the agent has no name of its own.
   */
  asTool(options: AgentToolOptions): Tool {
    const name = (options as Partial<AgentToolOptions> | undefined)?.name;
    return agentAsTool(
      {
        run: (request, caller) => this.#runEvents(request, { toolName: name, caller }),
        resume: ({ sessionId, ...request }, caller) =>
          this.#runEvents(request, { resume: true, sessionId, toolName: name, caller }),
        store: this.#runtime.store,
      },
      options,
    );
  }

  /**
   * Decides a wait of a parked run (SPEC 15.1), from any process with the same store: an
   * approval with `{ decision, reason?, message? }`, a form with `{ action, content? }`. Pass
   * the `fingerprint` you showed the person to get `WAIT_STALE` when the call changed since,
   * and the `principal` the session acts for when it has one (`PRINCIPAL_MISMATCH` otherwise,
   * SPEC 15.4). Then `resume(sessionId)` continues the run (once every wait is decided or
   * expired).
   */
  decide(
    sessionId: string,
    waitId: string,
    decision: WaitDecision,
    options?: Pick<DecideOptions, 'fingerprint'> & { readonly principal?: string },
  ): Promise<Wait> {
    return decideWait(this.#runtime, sessionId, waitId, decision, options);
  }

  /**
   * Queues `text` as a user message for a session (SPEC 15.2), from any process with the same
   * store: its running run takes it at the next step boundary, before its next model request
   * (`steering.delivered`); a parked session gets it on resume, an idle one at the start of
   * its next run. `SESSION_NOT_FOUND` for an unknown session. Pass the `principal` the
   * session acts for when it has one (`PRINCIPAL_MISMATCH` otherwise, SPEC 15.4).
   */
  steer(sessionId: string, text: string, options?: { readonly principal?: string }): Promise<void> {
    return steerSession(this.#runtime, sessionId, text, options);
  }

  /** Usage of every run of this agent and of its children so far (each run counted once). */
  get usage(): Usage {
    return this.#runtime.usage.total;
  }

  /** Resolves when no run, registry change or connect outside a run is in flight. */
  awaitIdle(): Promise<void> {
    return this.#runtime.awaitIdle();
  }

  /** Cancels every run and releases every tool source. Idempotent. */
  close(): Promise<void> {
    return this.#runtime.close();
  }

  /**
   * The events of a run of `request`, or with `how.resume` of a resume of `how.sessionId`
   * (`request` being the options of `resume()`).
   */
  #runEvents(
    request: RunRequest,
    how: {
      resume?: boolean;
      sessionId?: string;
      toolName?: string | undefined;
      caller?: ToolExecutionContext | undefined;
      createOnly?: boolean;
    } = {},
  ): AsyncIterable<AgentEvent> {
    const named: unknown = how.resume ? how.sessionId : request?.sessionId;
    const sessionId = typeof named === 'string' && named !== '' ? named : newId('session');
    const ids = {
      sessionId,
      runId: newId('run'),
      resume: how.resume === true,
      toolName: how.toolName,
      caller: how.caller,
      // a resume names its session: one that is no id fails the run, not a new session
      ...(how.resume ? { named } : {}),
      ...(how.createOnly ? { createOnly: true } : {}),
    };
    return new AgentRun(this.#runtime, request, ids).events();
  }
}

/**
 * The session store an agent runs on, for code of this package that drives an agent's runs
 * (workers, SPEC 15.5); not public API.
 */
export function agentSessionStore(agent: Agent): SessionStore {
  return storeReader.read!(agent);
}

/**
 * `agent.run(request)` for a session that must not exist yet: once the run holds the
 * session's lease, a session that exists (started by another delivery of the same request)
 * is refused with `SESSION_ALREADY_RUNNING` before anything is written. For code of this
 * package that drives an agent's runs (a worker's start job, SPEC 15.5); not public API.
 */
export function agentStartRun(agent: Agent, request: RunRequest): AsyncIterable<AgentEvent> {
  return newSessionRunner.run!(agent, request);
}

/** What code that dispatches an agent's runs (workers, SPEC 15.5) needs of its options. */
export interface AgentDispatchFacts {
  /** `sessionLeaseMs`, default applied: how long a run's lease lasts unrenewed. */
  readonly sessionLeaseMs: number;
  /**
   * When a task polled last at `polledAt` (ms since the epoch) with the server's
   * `pollIntervalMs` is due its next poll (`mcp.tasks` bounds applied, SPEC 15.3).
   */
  nextTaskPoll(polledAt: number, pollIntervalMs: number | undefined): number;
}

/**
 * The facts of an agent's options that code of this package dispatching its runs needs
 * (workers, SPEC 15.5); not public API.
 */
export function agentDispatchFacts(agent: Agent): AgentDispatchFacts {
  const options = optionsReader.read!(agent);
  return {
    sessionLeaseMs: options.sessionLeaseMs ?? DEFAULT_SESSION_LEASE_MS,
    nextTaskPoll: (polledAt, pollIntervalMs) =>
      polledAt + taskPollDelayMs(options.mcp?.tasks, pollIntervalMs),
  };
}

/** Creates an agent; the same as `new Agent(options)`. */
export function createAgent(options: AgentOptions = {}): Agent {
  return new Agent(options);
}
