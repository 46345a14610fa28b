import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { callWindow, drain, faultAgent, toolName } from './support/fault-agent.js';
import { measured, within } from './support/fault-timing.js';
import type { EventLog } from './support/fault-timing.js';
import { startFaultyHttp } from './support/faulty-servers.js';
import type { FaultyHttp } from './support/faulty-servers.js';
import { processCounts, startFaultyHttpProcess } from './support/http-process.js';
import type { HttpProcess } from './support/http-process.js';
import { FAST_RECONNECT } from './support/pending-options.js';
import type { AgentEvent } from '../../src/index.js';

// Streamable HTTP servers that restart: between two runs (with and without health checks) and
// during a run (the listener closed in process, or the process killed with SIGKILL), then
// started again on the same port.

const RECONNECT = FAST_RECONNECT;
const echo = (text: string) => ({
  toolCalls: [{ name: toolName('f', 'echo'), arguments: { text } }],
});
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function fixture(): Promise<FaultyHttp> {
  const f = await startFaultyHttp();
  cleanup.push(() => f.close());
  return f;
}

/** A turn that waits for the server to be connected again after a loss, then calls echo. */
const afterReconnect = (log: EventLog<AgentEvent>, text: string) => async () => {
  const lost = await within(log.status('f', 'reconnecting'), 10_000, 'reconnecting');
  await within(log.status('f', 'connected', log.stamped.indexOf(lost)), 10_000, 'connected');
  return echo(text);
};

describe('an HTTP server restarted between two runs', () => {
  it('the second run works with no host action, and its call runs once', async () => {
    const f = await fixture();
    const { agent, log } = faultAgent({
      servers: { f: { type: 'http', url: f.url } },
      turns: [
        echo('one'),
        { text: 'ok' },
        { toolCalls: [{ name: toolName('f', 'count'), arguments: {} }] },
        { text: 'ok' },
      ],
    });
    cleanup.push(() => agent.close());
    expect(await drain(agent.run({ input: 'one' }))).toBeUndefined();
    await f.restart();
    expect(await drain(agent.run({ input: 'two' }))).toBeUndefined();
    const second = callWindow(log, toolName('f', 'count'));
    expect(second.completed.event).toMatchObject({ isError: false, content: 'call 1' });
    expect(measured('restart between runs', second.ms)).toBeLessThan(3_000);
    expect(f.counts.calls['count']).toBe(1);
    expect(f.counts.initialize).toBe(2);
    expect(agent.mcp.list()[0]?.status).toBe('connected');
  });

  it('with health checks, list() stops saying connected while it is down and is connected again after', async () => {
    const f = await fixture();
    const interval = 200;
    const checkTimeout = 500;
    const { agent, log } = faultAgent({
      servers: { f: { type: 'http', url: f.url } },
      mcp: {
        reconnect: {
          ...RECONNECT,
          healthCheckIntervalMs: interval,
          healthCheckTimeoutMs: checkTimeout,
        },
      },
      turns: [echo('one'), { text: 'ok' }, echo('two'), { text: 'ok' }],
    });
    cleanup.push(() => agent.close());
    expect(await drain(agent.run({ input: 'one' }))).toBeUndefined();
    const from = log.stamped.length;
    const stoppedAt = performance.now();
    await f.stop();
    const noticed = await within(
      log.next((e) => e.type === 'mcp.server.status' && e.status !== 'connected', from),
      10_000,
      'the health check to notice',
    );
    expect(measured('health check notices', noticed.at - stoppedAt)).toBeLessThan(
      interval + checkTimeout + 2_000,
    );
    expect(noticed.event).toMatchObject({ status: 'reconnecting' });
    expect(agent.mcp.list()[0]?.status).not.toBe('connected');
    const startedAt = performance.now();
    await f.start();
    const back = await within(log.status('f', 'connected', from), 10_000, 'connected again');
    expect(measured('health check: back', back.at - startedAt)).toBeLessThan(
      RECONNECT.maxDelayMs + 2_500,
    );
    expect(agent.mcp.list()[0]?.status).toBe('connected');
    expect(await drain(agent.run({ input: 'two' }))).toBeUndefined();
    expect(callWindow(log, toolName('f', 'echo'), 1).completed.event).toMatchObject({
      isError: false,
      content: 'two',
    });
  });
});

describe('an HTTP server that goes away during a run', () => {
  it('listener closed mid-call: the call is TOOL_OUTCOME_UNKNOWN within 1 s; the next run reconnects', async () => {
    const f = await fixture();
    let stoppedAt = 0;
    const { agent, log } = faultAgent({
      servers: { f: { type: 'http', url: f.url } },
      mcp: { operation: { timeoutMs: 30_000 } },
      turns: [
        echo('before'),
        { toolCalls: [{ name: toolName('f', 'hang'), arguments: {} }] },
        { text: 'ok' },
        echo('next run'),
        { text: 'ok' },
      ],
    });
    cleanup.push(() => agent.close());
    void f.nextCall('hang').then(async () => {
      stoppedAt = performance.now();
      await f.stop();
    });
    expect(await drain(agent.run({ input: 'one' }))).toBeUndefined();
    const lost = callWindow(log, toolName('f', 'hang'));
    expect(lost.completed.event).toMatchObject({
      isError: true,
      errorCode: 'TOOL_OUTCOME_UNKNOWN',
    });
    expect(measured('listener closed mid-call', lost.completed.at - stoppedAt)).toBeLessThan(1_000);
    expect(callWindow(log, toolName('f', 'echo')).completed.event.content).toBe('before');
    await f.start();
    expect(await drain(agent.run({ input: 'two' }))).toBeUndefined();
    expect(callWindow(log, toolName('f', 'echo'), 1).completed.event).toMatchObject({
      isError: false,
      content: 'next run',
    });
    expect(f.counts.calls['hang']).toBe(1);
  });

  it('process killed mid-call and restarted on its port: unknown within 1 s, back within the backoff bound', async () => {
    let server: HttpProcess = await startFaultyHttpProcess();
    cleanup.push(() => server.kill());
    const port = server.port;
    let killedAt = 0;
    let restartedAt = 0;
    const { agent, log } = faultAgent({
      servers: { f: { type: 'http', url: server.url } },
      mcp: { operation: { timeoutMs: 30_000 }, reconnect: RECONNECT },
      turns: (log) => [
        echo('before'),
        async () => {
          // kill the process once the call is in flight, then start a new one on its port
          void (async () => {
            await waitForCall(server, 'hang');
            killedAt = performance.now();
            await server.kill('SIGKILL');
            server = await startFaultyHttpProcess(port);
            restartedAt = performance.now();
          })();
          return { toolCalls: [{ name: toolName('f', 'hang'), arguments: {} }] };
        },
        afterReconnect(log, 'after'),
        { text: 'ok' },
      ],
    });
    cleanup.push(() => agent.close());
    expect(await drain(agent.run({ input: 'go' }))).toBeUndefined();
    const lost = callWindow(log, toolName('f', 'hang'));
    expect(lost.completed.event).toMatchObject({
      isError: true,
      errorCode: 'TOOL_OUTCOME_UNKNOWN',
    });
    expect(measured('HTTP process killed mid-call', lost.completed.at - killedAt)).toBeLessThan(
      1_000,
    );
    const connected = log.stamped.filter(
      (s) => s.event.type === 'mcp.server.status' && s.event.status === 'connected',
    );
    expect(measured('HTTP process killed: back', connected.at(-1)!.at - restartedAt)).toBeLessThan(
      RECONNECT.maxDelayMs + 2_500,
    );
    const echoes = [0, 1].map((n) => callWindow(log, toolName('f', 'echo'), n).completed.event);
    expect(echoes.map((e) => [e.isError, e.content])).toEqual([
      [false, 'before'],
      [false, 'after'],
    ]);
    // the new process never saw the lost call again
    expect((await processCounts(server)).calls).toEqual({ echo: 1 });
  });
});

/** Resolves once the process has started executing `tool`. */
async function waitForCall(server: HttpProcess, tool: string): Promise<void> {
  for (;;) {
    if (((await processCounts(server)).calls[tool] ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}
