/**
 * An agent for one fault case: a scripted model, MCP servers in `legacy` mode (no probe) unless
 * the case says otherwise, every connection and MCP tool allowed, and every event (run and
 * background) recorded with its arrival time.
 */
import { expect } from 'vitest';
import { createAgent, scriptedModel } from '../../../src/index.js';
import type {
  Agent,
  AgentEvent,
  MusterError,
  ScriptedTurn,
  ToolResultMessage,
} from '../../../src/index.js';
import { EventLog } from './fault-timing.js';
import type { Stamped } from './fault-timing.js';
import { mcpOptions } from './pending-options.js';
import type { FaultMcpOptions, FaultServerConfig } from './pending-options.js';

/** The model-facing name of a server's tool. */
export const toolName = (server: string, tool: string): string => `mcp__${server}__${tool}`;

/** An agent with its event log. */
export interface FaultAgent {
  readonly agent: Agent;
  readonly log: EventLog<AgentEvent>;
}

/** Builds the agent of one case. */
export function faultAgent(options: {
  readonly servers: Record<string, FaultServerConfig>;
  /** The model's turns, or a function of the event log that gives them. */
  readonly turns:
    | readonly ScriptedTurn[]
    | ((log: EventLog<AgentEvent>) => readonly ScriptedTurn[]);
  readonly mcp?: FaultMcpOptions;
}): FaultAgent {
  const log = new EventLog<AgentEvent>();
  const turns = typeof options.turns === 'function' ? options.turns(log) : options.turns;
  const agent = createAgent({
    model: scriptedModel(turns),
    modelName: 'scripted',
    mcpServers: options.servers,
    mcp: mcpOptions({ strictConfig: true, protocol: { mode: 'legacy' }, ...options.mcp }),
    policy: { allow: ['mcp_connect:*', 'mcp__*'] },
    limits: { maxIterations: 10 },
    observability: { onEvent: log.push },
  });
  return { agent, log };
}

/** Drains a run (its events are in the agent's log); resolves with the thrown error, if any. */
export async function drain(run: AsyncIterable<AgentEvent>): Promise<MusterError | undefined> {
  try {
    for await (const _ of run) {
      // recorded through observability.onEvent
    }
    return undefined;
  } catch (err) {
    return err as MusterError;
  }
}

type Completed = Extract<AgentEvent, { type: 'tool.completed' }>;
type Called = Extract<AgentEvent, { type: 'tool.called' }>;

/** One call of a run: its `tool.called` and `tool.completed` events and the time between. */
export interface CallWindow {
  readonly called: Stamped<Called>;
  readonly completed: Stamped<Completed>;
  /** From `tool.called` to `tool.completed`, in milliseconds. */
  readonly ms: number;
}

/** The `n`-th call (0-based) of `name` in the log. */
export function callWindow(log: EventLog<AgentEvent>, name: string, n = 0): CallWindow {
  const called = log.stamped.filter(
    (s): s is Stamped<Called> => s.event.type === 'tool.called' && s.event.toolName === name,
  )[n];
  expect(called, `tool.called of ${name}`).toBeDefined();
  const completed = log.stamped.find(
    (s): s is Stamped<Completed> =>
      s.event.type === 'tool.completed' && s.event.callId === called!.event.callId,
  );
  expect(completed, `tool.completed of ${name}`).toBeDefined();
  return { called: called!, completed: completed!, ms: completed!.at - called!.at };
}

/** The events of one type, narrowed. */
export function eventsOf<T extends AgentEvent['type']>(
  log: EventLog<AgentEvent>,
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return log.events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** The id of the (first) session the log saw. */
export function sessionIdOf(log: EventLog<AgentEvent>): string {
  const started = eventsOf(log, 'session.started')[0];
  expect(started, 'session.started').toBeDefined();
  return started!.sessionId;
}

/** The tool results stored in the session, in order. */
export async function storedResults(agent: Agent, sessionId: string): Promise<ToolResultMessage[]> {
  const state = await agent.sessions.get(sessionId);
  expect(state, `session ${sessionId}`).toBeDefined();
  return state!.messages.filter((m): m is ToolResultMessage => m.role === 'tool');
}

/** The two model turns {@link stillAnswers} plays: `echo` on `server`, then "done". */
export function followUp(server: string): ScriptedTurn[] {
  return [
    {
      toolCalls: [{ name: toolName(server, 'echo'), arguments: { text: `still here ${server}` } }],
    },
    { text: 'done' },
  ];
}

/**
 * A follow-up run whose model turns are {@link followUp}`(server)` (the next two turns of the
 * script): the host and that server still answer.
 */
export async function stillAnswers(agent: Agent, server: string): Promise<void> {
  const reply = await agent.send('again');
  expect(reply.text).toBe('done');
  const completed = reply.events.filter(
    (e): e is Completed => e.type === 'tool.completed' && e.toolName === toolName(server, 'echo'),
  );
  expect(completed.map((c) => [c.isError, c.content])).toEqual([[false, `still here ${server}`]]);
}
