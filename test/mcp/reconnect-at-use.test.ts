import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type {
  AgentEvent,
  McpEvent,
  McpReconnectOptions,
  McpServerConfig,
} from '../../src/index.js';
import { readCountingLog, stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';
import { startRestartableServer } from '../fixtures/mcp/restartable-server.mjs';
import { EventLog } from './reconnect-events.js';

// A server lost between two turns of one run, and back by the next one: the model's next
// call reconnects it at that use (as a direct call does) and is sent once.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
});

function agentFor(
  server: McpServerConfig,
  reconnect: McpReconnectOptions,
  steps: Parameters<typeof scriptedModel>[0],
  events: EventLog,
) {
  const agent = createAgent({
    model: scriptedModel(steps),
    mcp: { strictConfig: true, protocol: { mode: 'legacy' }, reconnect },
    mcpServers: { r: server },
    policy: { allow: ['mcp_connect:r', 'mcp__r'] },
    observability: { onEvent: (e: AgentEvent) => events.push(e as McpEvent) },
  });
  cleanup.push(() => agent.close());
  return agent;
}

const echo = (text: string) => ({ toolCalls: [{ name: 'mcp__r__echo', arguments: { text } }] });

describe('a model call to a server lost between two turns of one run', () => {
  it.each<[string, McpReconnectOptions]>([
    // health checks notice the stopped idle server; nothing reconnects it in the background
    ['without background reconnect', { healthCheckIntervalMs: 100 }],
    [
      'after the background reconnect attempts ran out',
      {
        enabled: true,
        initialDelayMs: 20,
        maxDelayMs: 40,
        maxAttempts: 2,
        healthCheckIntervalMs: 100,
      },
    ],
  ])(
    'item-01: HTTP server restarted on the same port (%s): the next call reconnects and is sent once',
    async (_label, reconnect) => {
      const s = await startRestartableServer();
      cleanup.push(() => s.close());
      const events = new EventLog();
      const agent = agentFor(
        { type: 'http', url: s.url },
        reconnect,
        [
          echo('one'),
          async () => {
            // between the turns: the server goes away, is known lost (and, with background
            // reconnect, its attempts run out), then comes back on the same port
            const failed = events.status('r', 'failed');
            await s.stop();
            const status = await failed;
            if (reconnect.enabled)
              expect(status.error?.message).toContain('gave up after 2 reconnect attempts');
            await s.start();
            return echo('two');
          },
          { text: 'done' },
        ],
        events,
      );
      const { events: run, error } = await collect(agent.run({ input: 'x' }));
      expect(error).toBeUndefined();
      expect(
        ofType(run, 'tool.completed').map((e) => ({ isError: e.isError, content: e.content })),
      ).toEqual([
        { isError: false, content: 'one' },
        { isError: false, content: 'two' },
      ]);
      expect(s.counts.calls['echo']).toBe(2); // each call reached the server once
      expect(agent.mcp.list()[0]!.status).toBe('connected');
    },
  );

  it('item-01: stdio server whose process exited between turns: the next call starts it again and is sent once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'muster-reconnect-at-use-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const log = join(dir, 'counting.log');
    const events = new EventLog();
    const agent = agentFor(
      { type: 'stdio', ...stdioConfig('counting-server.mjs', [`--log=${log}`, '--log-requests']) },
      {},
      [
        echo('one'),
        async () => {
          const [first] = (await readCountingLog(log)).filter((l) => l.event === 'start');
          const failed = events.status('r', 'failed');
          process.kill(first!.pid, 'SIGKILL');
          await failed; // the exit is known before the next call
          return echo('two');
        },
        { text: 'done' },
      ],
      events,
    );
    const { events: run, error } = await collect(agent.run({ input: 'x' }));
    expect(error).toBeUndefined();
    expect(
      ofType(run, 'tool.completed').map((e) => ({ isError: e.isError, content: e.content })),
    ).toEqual([
      { isError: false, content: 'counting: one' },
      { isError: false, content: 'counting: two' },
    ]);
    const lines = await readCountingLog(log);
    const starts = lines.filter((l) => l.event === 'start').map((l) => l.pid);
    expect(starts).toHaveLength(2);
    // one call per process: the second was sent once, on the new process
    const calls = lines.filter((l) => (l.event as string) === 'tools/call').map((l) => l.pid);
    expect(calls).toEqual(starts);
    expect(agent.mcp.list()[0]!.status).toBe('connected');
  });
});
