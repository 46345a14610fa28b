/**
 * The shape most call faults share: one run whose model calls `echo` on the faulty server
 * (a result produced before the fault), then the faulty tool, then `echo` on a healthy
 * server, then answers; a second run calls the faulty server again. What every such case
 * asserts: the run completes, the earlier result is stored intact, the healthy server
 * answered after the fault, and the faulty server answers the next run.
 */
import { expect } from 'vitest';
import type { Agent, AgentEvent, ScriptedToolCall, ScriptedTurn } from '../../../src/index.js';
import {
  callWindow,
  drain,
  faultAgent,
  followUp,
  sessionIdOf,
  stillAnswers,
  storedResults,
  toolName,
} from './fault-agent.js';
import type { CallWindow } from './fault-agent.js';
import type { EventLog } from './fault-timing.js';
import { faultyStdio } from './faulty-servers.js';
import type { FaultMcpOptions, FaultServerConfig } from './pending-options.js';

/** One call-fault case. */
export interface CallFaultCase {
  /** The faulty server's declaration (it is named `f`). */
  readonly server: FaultServerConfig;
  /** The faulty call's tool (on `f`) and arguments. */
  readonly tool: string;
  readonly args?: Record<string, unknown>;
  readonly mcp?: FaultMcpOptions;
  /** Runs just before the model makes the faulty call (after the earlier result is in). */
  readonly beforeFault?: (log: EventLog<AgentEvent>) => unknown;
  /** Turns played between the faulty call and the call to the healthy server. */
  readonly between?: readonly ScriptedTurn[];
}

/** What a run of a call-fault case gave. */
export interface CallFaultRun {
  readonly agent: Agent;
  readonly log: EventLog<AgentEvent>;
  /** The faulty call's window (`tool.called` -> `tool.completed`). */
  readonly fault: CallWindow;
  /** The first run's session. */
  readonly sessionId: string;
}

const call = (server: string, tool: string, args: Record<string, unknown>): ScriptedToolCall => ({
  name: toolName(server, tool),
  arguments: args,
});

/** Builds the agent and plays the first run; the caller closes the agent. */
export async function runCallFault(c: CallFaultCase): Promise<CallFaultRun> {
  const { agent, log } = faultAgent({
    servers: { f: c.server, good: faultyStdio({ name: 'good' }) },
    ...(c.mcp ? { mcp: c.mcp } : {}),
    turns: [
      { toolCalls: [call('f', 'echo', { text: 'before' })] },
      async () => {
        await c.beforeFault?.(log);
        return { toolCalls: [call('f', c.tool, c.args ?? {})] };
      },
      ...(c.between ?? []),
      { toolCalls: [call('good', 'echo', { text: 'after' })] },
      { text: 'ok' },
      ...followUp('f'),
    ],
  });
  const error = await drain(agent.run({ input: 'go' }));
  expect(error, 'the run survives the fault').toBeUndefined();
  return {
    agent,
    log,
    fault: callWindow(log, toolName('f', c.tool)),
    sessionId: sessionIdOf(log),
  };
}

/**
 * The survival half of a case: nothing produced before the fault is lost, the healthy server
 * answered after it, and the faulty server (reconnected if it had to be) answers the next run.
 */
export async function expectSurvived(run: CallFaultRun): Promise<void> {
  const results = await storedResults(run.agent, run.sessionId);
  expect(results[0]).toMatchObject({ toolName: toolName('f', 'echo'), content: 'before' });
  expect(results[0]?.isError).toBe(false);
  expect(results.at(-1)).toMatchObject({
    toolName: toolName('good', 'echo'),
    content: 'after',
    isError: false,
  });
  expect(run.agent.mcp.list().find((s) => s.name === 'good')?.status).toBe('connected');
  await stillAnswers(run.agent, 'f');
}
