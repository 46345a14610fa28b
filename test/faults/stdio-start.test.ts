import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import {
  callWindow,
  drain,
  eventsOf,
  faultAgent,
  followUp,
  stillAnswers,
  toolName,
} from './support/fault-agent.js';
import { allGone, measured, timed, waitFor, within } from './support/fault-timing.js';
import { faultLog, faultyStdio, readFaultLog } from './support/faulty-servers.js';
import { diagnosticsOf } from './support/pending-options.js';

// Stdio servers that fail before they are connected: they exit at start, never answer
// `initialize`, start slowly, or are aborted while connecting (in `legacy` and in `auto` mode,
// whose first contact sends `initialize` first too, to the real process).

const CANARY = 'CANARY-stderr-token-5b1e0c';
const good = () => faultyStdio({ name: 'good' });
const echoGood = { name: toolName('good', 'echo'), arguments: { text: 'first' } };

describe('a stdio server that exits at start', () => {
  it('is failed with its exit code; the run, the other server and the host go on', async () => {
    const { agent, log } = faultAgent({
      servers: {
        good: good(),
        bad: faultyStdio({ mode: 'exit-at-start', exitCode: 3, env: { FAULTY_SECRET: CANARY } }),
      },
      turns: [{ toolCalls: [echoGood] }, { text: 'ok' }, ...followUp('good')],
    });
    try {
      const error = await drain(agent.run({ input: 'go' }));
      expect(error).toBeUndefined();
      const connecting = await log.status('bad', 'connecting');
      const failed = await log.status('bad', 'failed');
      const detectionMs = measured('exit at start', failed.at - connecting.at);
      expect(detectionMs).toBeLessThan(3_000);
      const bad = agent.mcp.list().find((s) => s.name === 'bad')!;
      expect(bad).toMatchObject({ status: 'failed', error: { code: 'MCP_CONNECTION_FAILED' } });
      expect(bad.error?.message).toMatch(/exit/i);
      expect(bad.error?.message).toMatch(/\b3\b/);
      // stderr goes to the host's diagnostics only, redacted
      const everything = JSON.stringify([log.events, agent.mcp.list()]);
      expect(everything).not.toContain('cannot open the database');
      expect(everything).not.toContain(CANARY);
      const diagnostics = diagnosticsOf(agent.mcp, 'bad');
      expect(diagnostics.stderrTail).toContain('cannot open the database');
      expect(diagnostics.stderrTail).not.toContain(CANARY);
      expect(diagnostics.exit).toEqual({ code: 3, signal: null });
      // nothing produced is lost: the call to the other server ran and is answered
      expect(callWindow(log, echoGood.name).completed.event).toMatchObject({
        isError: false,
        content: 'first',
      });
      await stillAnswers(agent, 'good');
      expect(agent.mcp.list().find((s) => s.name === 'bad')?.status).toBe('failed');
    } finally {
      await agent.close();
    }
  });
});

describe('a stdio server that never answers initialize', () => {
  it('fails within connectTimeoutMs, its process is reaped, and the others connect', async () => {
    const file = faultLog('hang-init');
    const { agent, log } = faultAgent({
      servers: {
        good: good(),
        hung: { ...faultyStdio({ mode: 'hang-init', log: file }), connectTimeoutMs: 1_000 },
      },
      turns: [{ toolCalls: [echoGood] }, { text: 'ok' }, ...followUp('good')],
    });
    try {
      const run = await timed(drain(agent.run({ input: 'go' })));
      expect(run.value).toBeUndefined();
      const connecting = await log.status('hung', 'connecting');
      const failed = await log.status('hung', 'failed');
      const detectionMs = measured('hang on initialize', failed.at - connecting.at);
      expect(detectionMs).toBeGreaterThanOrEqual(900);
      expect(detectionMs).toBeLessThan(1_000 + 2_500);
      expect(run.ms).toBeLessThan(10_000);
      const hung = agent.mcp.list().find((s) => s.name === 'hung')!;
      expect(hung).toMatchObject({ status: 'failed', error: { code: 'MCP_CONNECTION_FAILED' } });
      expect(hung.error?.message).toMatch(/connectTimeoutMs/);
      await allGone((await readFaultLog(file)).starts);
      expect(callWindow(log, echoGood.name).completed.event.isError).toBe(false);
      await stillAnswers(agent, 'good');
    } finally {
      await agent.close();
    }
  });
});

describe('a stdio server that starts slowly', () => {
  it('connects when its start fits within connectTimeoutMs', async () => {
    const { agent, log } = faultAgent({
      servers: {
        slow: { ...faultyStdio({ mode: 'slow-start', delayMs: 1_500 }), connectTimeoutMs: 8_000 },
      },
      turns: [
        { toolCalls: [{ name: toolName('slow', 'echo'), arguments: { text: 'late' } }] },
        { text: 'ok' },
        ...followUp('slow'),
      ],
    });
    try {
      expect(await drain(agent.run({ input: 'go' }))).toBeUndefined();
      const connecting = await log.status('slow', 'connecting');
      const connected = await log.status('slow', 'connected');
      const connectMs = measured('slow start', connected.at - connecting.at);
      expect(connectMs).toBeGreaterThanOrEqual(1_400);
      expect(connectMs).toBeLessThan(8_000);
      expect(callWindow(log, toolName('slow', 'echo')).completed.event).toMatchObject({
        isError: false,
        content: 'late',
      });
      await stillAnswers(agent, 'slow');
    } finally {
      await agent.close();
    }
  });
});

describe('an abort while a stdio server connects', () => {
  it.each([
    ['the initialize handshake', 'legacy' as const],
    ['the first contact of auto mode', 'auto' as const],
  ])('during %s settles the run within 500 ms and leaves no process', async (_label, mode) => {
    const file = faultLog(`abort-${mode}`);
    const { agent, log } = faultAgent({
      // the first process hangs on `initialize` (in `auto` mode too: it goes first);
      // later ones answer, so the next run shows the server is usable
      servers: { hung: faultyStdio({ mode: 'hang-init', restartMode: 'normal', log: file }) },
      mcp: { strictConfig: true, protocol: { mode } },
      turns: [...followUp('hung')],
    });
    try {
      const controller = new AbortController();
      const run = drain(agent.run({ input: 'go', signal: controller.signal }));
      await log.status('hung', 'connecting');
      await waitFor(async () => (await readFaultLog(file)).starts.length > 0, 'a process');
      const abortedAt = performance.now();
      controller.abort();
      const error = await within(run, 10_000, 'the aborted run to settle');
      const label =
        mode === 'auto' ? 'abort during the auto first contact' : 'abort during connect';
      const settleMs = measured(label, performance.now() - abortedAt);
      expect(error?.code).toBe('ABORTED');
      expect(settleMs).toBeLessThan(500);
      expect(eventsOf(log, 'session.failed')).toHaveLength(1);
      // no process is left
      await allGone((await readFaultLog(file)).starts, 2_000);
      expect(agent.mcp.list()[0]?.status).not.toBe('connected');
      await stillAnswers(agent, 'hung');
    } finally {
      await agent.close();
    }
  });
});
