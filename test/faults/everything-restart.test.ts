import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { callWindow, drain, faultAgent, toolName } from './support/fault-agent.js';
import { measured, within } from './support/fault-timing.js';
import { freePort, startEverythingProcess } from './support/http-process.js';
import { FAST_RECONNECT } from './support/pending-options.js';
import type { HttpProcess } from './support/http-process.js';

// The reference server-everything over Streamable HTTP, killed (SIGKILL) and started again on
// the same port: between two runs, and during a run with a call in flight.

const RECONNECT = FAST_RECONNECT;
const echo = (message: string) => ({
  toolCalls: [{ name: toolName('everything', 'echo'), arguments: { message } }],
});
let server: HttpProcess | undefined;
afterEach(async () => {
  await server?.kill();
  server = undefined;
});

describe('server-everything killed and restarted', () => {
  it('between two runs: the second run works with no host action', async () => {
    const port = await freePort();
    server = await startEverythingProcess(port);
    const { agent, log } = faultAgent({
      servers: { everything: { type: 'http', url: server.url } },
      turns: [echo('one'), { text: 'ok' }, echo('two'), { text: 'ok' }],
    });
    try {
      expect(await drain(agent.run({ input: 'one' }))).toBeUndefined();
      await server.kill('SIGKILL');
      server = await startEverythingProcess(port);
      expect(await drain(agent.run({ input: 'two' }))).toBeUndefined();
      const second = callWindow(log, toolName('everything', 'echo'), 1);
      expect(second.completed.event).toMatchObject({ isError: false, content: 'Echo: two' });
      expect(measured('everything restart between runs', second.ms)).toBeLessThan(5_000);
      expect(agent.mcp.list()[0]?.status).toBe('connected');
    } finally {
      await agent.close();
    }
  });

  it('during a run: the call in flight is TOOL_OUTCOME_UNKNOWN within 1 s, the server is back within the backoff bound', async () => {
    const port = await freePort();
    server = await startEverythingProcess(port);
    const long = toolName('everything', 'trigger-long-running-operation');
    let killedAt = 0;
    let restartedAt = 0;
    let restarted: Promise<void> | undefined;
    const { agent, log } = faultAgent({
      servers: { everything: { type: 'http', url: server.url } },
      mcp: { operation: { timeoutMs: 30_000 }, reconnect: RECONNECT },
      turns: (log) => [
        echo('before'),
        () => {
          // once the call reports progress (it is running), kill the server and restart it
          restarted = log
            .next((e) => e.type === 'tool.progress' && e.toolName === long)
            .then(async () => {
              killedAt = performance.now();
              await server!.kill('SIGKILL');
              server = await startEverythingProcess(port);
              restartedAt = performance.now();
            });
          return { toolCalls: [{ name: long, arguments: { duration: 20, steps: 20 } }] };
        },
        async () => {
          await within(restarted!, 20_000, 'the restart');
          const from = log.stamped.findIndex((s) => s.at >= killedAt);
          await within(
            log.status('everything', 'connected', from < 0 ? log.stamped.length : from),
            10_000,
            'connected again',
          );
          return echo('after');
        },
        { text: 'ok' },
      ],
    });
    try {
      expect(await drain(agent.run({ input: 'go' }))).toBeUndefined();
      const lost = callWindow(log, long);
      expect(lost.completed.event).toMatchObject({
        isError: true,
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
      });
      expect(measured('everything killed mid-call', lost.completed.at - killedAt)).toBeLessThan(
        1_000,
      );
      const back = log.stamped.find(
        (s) =>
          s.at >= killedAt &&
          s.event.type === 'mcp.server.status' &&
          s.event.status === 'connected',
      );
      expect(back, 'connected after the restart').toBeDefined();
      expect(measured('everything killed: back', back!.at - restartedAt)).toBeLessThan(
        RECONNECT.maxDelayMs + 2_500,
      );
      const echoes = [0, 1].map(
        (n) => callWindow(log, toolName('everything', 'echo'), n).completed.event,
      );
      expect(echoes.map((e) => [e.isError, e.content])).toEqual([
        [false, 'Echo: before'],
        [false, 'Echo: after'],
      ]);
    } finally {
      await agent.close();
    }
  });
});
