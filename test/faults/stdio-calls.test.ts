import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { callWindow, drain, eventsOf, faultAgent, toolName } from './support/fault-agent.js';
import { expectSurvived, runCallFault } from './support/fault-case.js';
import { measured, waitFor, within } from './support/fault-timing.js';
import { faultLog, faultyStdio, readFaultLog } from './support/faulty-servers.js';
import { FAST_RECONNECT } from './support/pending-options.js';

// Stdio servers that misbehave during a call: they die, flood, answer too much, write frames
// that are not JSON-RPC, answer with the wrong id, violate their output schema, or report
// progress for longer than the call's timeout.

const LONG = { timeoutMs: 30_000 };

describe('a stdio server that dies in the middle of a call', () => {
  it('fails the call as TOOL_OUTCOME_UNKNOWN at once, never replays it, and reconnects on next use', async () => {
    const file = faultLog('crash');
    const run = await runCallFault({
      server: faultyStdio({ log: file }),
      tool: 'crash',
      mcp: { operation: LONG },
    });
    try {
      expect(run.fault.completed.event).toMatchObject({
        isError: true,
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
      });
      expect(measured('crash mid-call (stdio)', run.fault.ms)).toBeLessThan(2_000);
      await expectSurvived(run);
      const log = await readFaultLog(file);
      expect(log.calls.filter((c) => c.tool === 'crash')).toHaveLength(1);
      expect(log.starts).toHaveLength(2); // the crashed process, and the next run's
    } finally {
      await run.agent.close();
    }
  });
});

describe('a stdio server that floods notifications', () => {
  it('10 000 progress and 10 000 log notifications: the call completes, the host keeps up', async () => {
    const rssBefore = process.memoryUsage().rss;
    const run = await runCallFault({
      server: faultyStdio(),
      tool: 'flood',
      args: { count: 10_000 },
      mcp: { operation: LONG },
    });
    try {
      expect(run.fault.completed.event).toMatchObject({ isError: false, content: 'flood done' });
      expect(measured('notification flood (stdio)', run.fault.ms)).toBeLessThan(20_000);
      const progress = eventsOf(run.log, 'tool.progress')
        .filter((p) => p.toolName === toolName('f', 'flood'))
        .map((p) => p.progress);
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.length).toBeLessThanOrEqual(10_000);
      expect(progress.every((p, i) => i === 0 || p > progress[i - 1]!)).toBe(true);
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });
});

describe('a stdio response over mcp.maxResponseBytes', () => {
  it('fails the call with TOOL_RESULT_TOO_LARGE naming the bound, promptly', async () => {
    const run = await runCallFault({
      server: faultyStdio(),
      tool: 'big',
      args: { bytes: 1_000_000 },
      mcp: { operation: LONG, maxResponseBytes: 256 * 1024 },
    });
    try {
      expect(run.fault.completed.event).toMatchObject({
        isError: true,
        errorCode: 'TOOL_RESULT_TOO_LARGE',
      });
      expect(run.fault.completed.event.content).toMatch(/maxResponseBytes/);
      expect(measured('oversized response (stdio)', run.fault.ms)).toBeLessThan(5_000);
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });
});

describe('malformed frames from a stdio server', () => {
  it('a line that is not JSON and a response for an unknown id are diagnostics; the call still completes', async () => {
    const run = await runCallFault({ server: faultyStdio(), tool: 'malformed' });
    try {
      expect(run.fault.completed.event).toMatchObject({
        isError: false,
        content: 'malformed done',
      });
      expect(measured('malformed frames', run.fault.ms)).toBeLessThan(3_000);
      const diagnostics = eventsOf(run.log, 'mcp.diagnostic').filter((d) => d.server === 'f');
      expect(diagnostics.length).toBeGreaterThanOrEqual(1);
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });

  it('a response with the wrong id only: the call ends at its timeoutMs, outcome unknown', async () => {
    const run = await runCallFault({
      server: faultyStdio(),
      tool: 'wrong-id',
      mcp: { operation: { timeoutMs: 1_000 } },
    });
    try {
      expect(run.fault.completed.event).toMatchObject({
        isError: true,
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
      });
      expect(measured('wrong id only', run.fault.ms)).toBeGreaterThanOrEqual(900);
      expect(run.fault.ms).toBeLessThan(1_000 + 2_500);
      expect(run.fault.completed.event.content).toMatch(/timeoutMs/);
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });
});

describe('structured content that violates the declared output schema', () => {
  it('is a tool error for the model, not a crash of the run or the connection', async () => {
    const run = await runCallFault({ server: faultyStdio(), tool: 'bad-output' });
    try {
      expect(run.fault.completed.event).toMatchObject({
        isError: true,
        errorCode: 'TOOL_EXECUTION_FAILED',
        executed: true,
      });
      expect(measured('output schema violation', run.fault.ms)).toBeLessThan(3_000);
      expect(run.agent.mcp.list().find((s) => s.name === 'f')?.status).toBe('connected');
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });
});

describe('progress against timeouts', () => {
  it('progress keeps a call alive past timeoutMs; maxTotalTimeoutMs still ends it', async () => {
    const progressTool = toolName('f', 'progress');
    const run = await runCallFault({
      server: faultyStdio(),
      // 6 x 300 ms = 1.8 s: longer than timeoutMs, shorter than maxTotalTimeoutMs
      tool: 'progress',
      args: { steps: 6, intervalMs: 300 },
      mcp: { operation: { timeoutMs: 800, maxTotalTimeoutMs: 2_500 } },
      // 20 x 300 ms = 6 s: ended by maxTotalTimeoutMs
      between: [{ toolCalls: [{ name: progressTool, arguments: { steps: 20, intervalMs: 300 } }] }],
    });
    try {
      expect(run.fault.completed.event).toMatchObject({
        isError: false,
        content: 'progress done 6',
      });
      expect(measured('progress past timeoutMs', run.fault.ms)).toBeGreaterThan(800);
      const ended = callWindow(run.log, progressTool, 1);
      expect(ended.completed.event).toMatchObject({
        isError: true,
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
      });
      expect(measured('maxTotalTimeoutMs despite progress', ended.ms)).toBeGreaterThanOrEqual(
        2_400,
      );
      expect(ended.ms).toBeLessThan(2_500 + 2_500);
      expect(ended.completed.event.content).toMatch(/maxTotalTimeoutMs/);
      // the progress reported before the deadline is kept
      const progress = eventsOf(run.log, 'tool.progress').filter(
        (p) => p.callId === ended.called.event.callId,
      );
      expect(progress.length).toBeGreaterThanOrEqual(3);
      await expectSurvived(run);
    } finally {
      await run.agent.close();
    }
  });
});

describe('a stdio server killed during a run, with mcp.reconnect.enabled', () => {
  it('the call in flight is TOOL_OUTCOME_UNKNOWN within 1 s; the server is back within the backoff bound', async () => {
    const file = faultLog('killed');
    const { agent, log } = faultAgent({
      servers: { f: faultyStdio({ log: file }) },
      mcp: {
        operation: LONG,
        reconnect: FAST_RECONNECT,
      },
      turns: [
        { toolCalls: [{ name: toolName('f', 'echo'), arguments: { text: 'before' } }] },
        { toolCalls: [{ name: toolName('f', 'hang'), arguments: {} }] },
        // the next turn waits for the reconnect, then calls the same server again
        async () => {
          const lost = await within(log.status('f', 'reconnecting'), 10_000, 'reconnecting');
          const from = log.stamped.indexOf(lost);
          await within(log.status('f', 'connected', from), 10_000, 'connected again');
          return { toolCalls: [{ name: toolName('f', 'echo'), arguments: { text: 'after' } }] };
        },
        { text: 'ok' },
      ],
    });
    try {
      const run = drain(agent.run({ input: 'go' }));
      const pid = await waitFor(
        async () => (await readFaultLog(file)).calls.find((c) => c.tool === 'hang')?.pid,
        'the hang call to start',
      );
      const killedAt = performance.now();
      process.kill(pid, 'SIGKILL');
      expect(await run).toBeUndefined();
      const lost = callWindow(log, toolName('f', 'hang'));
      expect(lost.completed.event).toMatchObject({
        isError: true,
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
      });
      expect(measured('stdio killed mid-call', lost.completed.at - killedAt)).toBeLessThan(1_000);
      const reconnecting = await log.status('f', 'reconnecting');
      const connected = await log.status('f', 'connected', log.stamped.indexOf(reconnecting));
      expect(reconnecting.at).toBeGreaterThanOrEqual(killedAt);
      expect(measured('stdio killed: back', connected.at - killedAt)).toBeLessThan(5_000);
      expect(callWindow(log, toolName('f', 'echo'), 1).completed.event).toMatchObject({
        isError: false,
        content: 'after',
      });
      const calls = (await readFaultLog(file)).calls.map((c) => c.tool);
      expect(calls).toEqual(['echo', 'hang', 'echo']); // the lost call was not re-sent
    } finally {
      await agent.close();
    }
  });
});
