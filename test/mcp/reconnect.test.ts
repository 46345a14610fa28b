import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentEvent, McpEvent, McpReconnectOptions } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { collect, ofType } from '../support/run-helpers.js';
import { startRestartableServer } from '../fixtures/mcp/restartable-server.mjs';
import type {
  RestartableServer,
  UnknownSessionAnswer,
} from '../fixtures/mcp/restartable-server.mjs';
import { EventLog } from './reconnect-events.js';

// mcp.reconnect against a real loopback Streamable HTTP server that is stopped (a kill: its
// sockets destroyed) and started again on the same port.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
});

async function server(options?: { unknownSession?: UnknownSessionAnswer; quiet?: boolean }) {
  const s = await startRestartableServer(options);
  cleanup.push(() => s.close());
  return s;
}

function manager(
  s: RestartableServer,
  events: EventLog,
  reconnect?: McpReconnectOptions,
  names: readonly string[] = ['r'],
) {
  const m = new McpClientManager(
    Object.fromEntries(names.map((n) => [n, { type: 'http' as const, url: s.url }])),
    {
      strictConfig: true,
      protocol: { mode: 'legacy' },
      operation: { timeoutMs: 20_000 },
      ...(reconnect ? { reconnect } : {}),
      onEvent: events.push,
    },
  );
  cleanup.push(() => m.close());
  return m;
}

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const FAST = { initialDelayMs: 50, maxDelayMs: 200, jitterRatio: 0.2, maxAttempts: 50 };

describe('mcp.reconnect options', () => {
  it('are checked at construction: unknown keys and out-of-range values fail', () => {
    const bad: unknown[] = [
      { enabled: 'yes' },
      { maxAttempts: 0 },
      { jitterRatio: 1.5 },
      { initialDelayMs: -1 },
      { healthCheckIntervalMs: 50 },
      { healthCheckTimeoutMs: 0 },
      { retries: 3 },
    ];
    for (const reconnect of bad)
      expect(
        () => new McpClientManager({}, { strictConfig: true, reconnect } as never),
        JSON.stringify(reconnect),
      ).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    expect(
      () =>
        new McpClientManager(
          {},
          { strictConfig: true, reconnect: { enabled: true, ...FAST, healthCheckIntervalMs: 100 } },
        ),
    ).not.toThrow();
  });
});

describe('a request that was not sent', () => {
  it('with reconnect enabled, a refused call waits for the reconnect and runs exactly once', async () => {
    // no event stream: nothing tells the client the server went away before the call
    const s = await server({ quiet: true });
    const events = new EventLog();
    const m = manager(s, events, { enabled: true, ...FAST });
    await m.connectAll();
    expect(await m.callTool('r', 'echo', { text: 'a' })).toMatchObject(text('a'));
    await s.stop();
    expect(m.list()[0]!.status).toBe('connected'); // not known yet

    const reconnecting = events.status('r', 'reconnecting');
    const call = m.callTool('r', 'echo', { text: 'b' });
    await reconnecting; // the refused call showed the server gone
    expect(m.list()[0]!.status).toBe('reconnecting');
    expect(s.counts.calls['echo']).toBe(1);
    await s.start();
    expect(await call).toMatchObject(text('b'));
    expect(s.counts.calls['echo']).toBe(2); // sent once on the new connection, never twice
    expect(m.list()[0]).toMatchObject({ status: 'connected' });
    expect(events.statuses('r').slice(-2)).toEqual(['reconnecting', 'connected']);
  });

  it("a model's call to a server reconnecting in the background waits for it and runs once", async () => {
    const s = await server();
    const events = new EventLog();
    const agent = createAgent({
      model: scriptedModel([
        async () => {
          // the server goes away after the run's catalog was fixed
          const lost = events.status('r', 'reconnecting');
          await s.stop();
          await lost;
          return { toolCalls: [{ name: 'mcp__r__echo', arguments: { text: 'late' } }] };
        },
        { text: 'done' },
      ]),
      mcp: {
        strictConfig: true,
        protocol: { mode: 'legacy' },
        reconnect: { enabled: true, ...FAST, healthCheckIntervalMs: 100 },
      },
      mcpServers: { r: { type: 'http', url: s.url } },
      policy: { allow: ['mcp_connect:r', 'mcp__r'] },
      observability: {
        onEvent: (e: AgentEvent) => {
          events.push(e as McpEvent);
          // the server comes back only once the call is waiting for it
          if (e.type === 'tool.called') void s.start();
        },
      },
    });
    cleanup.push(() => agent.close());
    const { events: run, error } = await collect(agent.run({ input: 'x' }));
    expect(error).toBeUndefined();
    expect(ofType(run, 'tool.completed')[0]).toMatchObject({
      isError: false,
      executed: true,
      content: 'late',
    });
    expect(s.counts.calls['echo']).toBe(1);
    expect(agent.mcp.list()[0]!.status).toBe('connected');
  });

  it('without reconnect, a refused call fails at once and the status no longer says connected', async () => {
    const s = await server({ quiet: true });
    const events = new EventLog();
    const m = manager(s, events);
    await m.connectAll();
    await s.stop();
    expect(m.list()[0]!.status).toBe('connected'); // not known yet
    const err = await m.callTool('r', 'echo', { text: 'b' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: expect.any(String) });
    expect(m.list()[0]).toMatchObject({ status: 'failed', error: { code: 'MCP_DISCONNECTED' } });
    expect(s.counts.calls['echo']).toBeUndefined();
    // the next use reconnects
    await s.start();
    expect(await m.callTool('r', 'echo', { text: 'c' })).toMatchObject(text('c'));
    expect(s.counts.calls['echo']).toBe(1);
    expect(m.list()[0]!.status).toBe('connected');
  });
});

describe('background reconnect', () => {
  it('reports every step and gives up after maxAttempts with the reason, then reconnects at the next use', async () => {
    const s = await server();
    const events = new EventLog();
    const m = manager(s, events, {
      enabled: true,
      initialDelayMs: 20,
      maxDelayMs: 40,
      maxAttempts: 3,
      healthCheckIntervalMs: 100,
      healthCheckTimeoutMs: 1_000,
    });
    await m.connectAll();
    const failed = events.status('r', 'failed');
    await s.stop();
    const status = await failed;
    expect(status.error).toMatchObject({ code: 'MCP_CONNECTION_FAILED' });
    expect(status.error!.message).toContain('gave up after 3 reconnect attempts');
    // lost, then one `reconnecting` per failed attempt before the last, then failed
    expect(events.statuses('r').slice(-4)).toEqual([
      'reconnecting',
      'reconnecting',
      'reconnecting',
      'failed',
    ]);
    await s.start();
    expect(await m.callTool('r', 'echo', { text: 'x' })).toMatchObject(text('x'));
    expect(m.list()[0]!.status).toBe('connected');
  });
});

describe('health checks', () => {
  it('notice a stopped idle server within interval + timeout', async () => {
    // no event stream: only a check can tell that the server went away
    const s = await server({ quiet: true });
    const events = new EventLog();
    const interval = 200;
    const timeout = 1_000;
    const m = manager(s, events, {
      healthCheckIntervalMs: interval,
      healthCheckTimeoutMs: timeout,
    });
    await m.connectAll();
    const failed = events.status('r', 'failed');
    const t0 = performance.now();
    await s.stop();
    const detected = events.arrivedAt(await failed) - t0;
    expect(detected).toBeLessThan(interval + timeout + 1_500);
    expect(m.list()[0]).toMatchObject({ status: 'failed', error: { code: 'MCP_DISCONNECTED' } });
  });

  it('notice a hung idle server within interval + timeout, with one check at a time', async () => {
    const s = await server();
    const events = new EventLog();
    const interval = 100;
    const timeout = 800;
    const m = manager(s, events, {
      healthCheckIntervalMs: interval,
      healthCheckTimeoutMs: timeout,
    });
    await m.connectAll();
    const failed = events.status('r', 'failed');
    const t0 = performance.now();
    const before = s.requests.length;
    s.hang(true);
    const detected = events.arrivedAt(await failed) - t0;
    expect(detected).toBeGreaterThanOrEqual(timeout - 50);
    expect(detected).toBeLessThan(interval + timeout + 1_500);
    // a hung check is never joined by another one (ticks came every 100 ms meanwhile)
    expect(s.requests.slice(before).filter((r) => r === 'POST ping')).toHaveLength(1);
    s.hang(false);
  });

  it('renew a session the server forgot: the status stays connected', async () => {
    const s = await server({ quiet: true, unknownSession: 'no-valid-session' });
    const events = new EventLog();
    const m = manager(s, events, { healthCheckIntervalMs: 100, healthCheckTimeoutMs: 1_000 });
    await m.connectAll();
    const inits = s.counts.initialize;
    const statuses = events.statuses('r').length;
    await s.expireSessions();
    await expect.poll(() => s.counts.initialize, { timeout: 10_000 }).toBe(inits + 1);
    expect(events.statuses('r').length).toBe(statuses); // never failed nor reconnecting
    expect(await m.callTool('r', 'echo', { text: 'y' })).toMatchObject(text('y'));
    expect(s.counts.initialize).toBe(inits + 1);
    expect(m.list()[0]!.status).toBe('connected');
  });

  it('never run while a call is in flight on the server', async () => {
    const s = await server();
    const events = new EventLog();
    const m = manager(s, events, { healthCheckIntervalMs: 100, healthCheckTimeoutMs: 1_000 });
    await m.connectAll();
    const pings = () => s.requests.filter((r) => r === 'POST ping').length;
    // the checks run while idle
    await expect.poll(pings, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    const call = m.callTool('r', 'slow', { ms: 1_200 });
    await expect.poll(() => s.requests.includes('POST tools/call')).toBe(true);
    const during = pings();
    await call;
    // at most the one check already on its way when the call started (a 100 ms interval
    // would have made about a dozen during the 1.2 s call)
    expect(pings() - during).toBeLessThanOrEqual(1);
    await expect.poll(pings, { timeout: 10_000 }).toBeGreaterThan(during + 1);
    expect(m.list()[0]!.status).toBe('connected');
  });
});

describe('a lost Streamable HTTP session', () => {
  describe.each<UnknownSessionAnswer>(['not-found', 'no-valid-session', 'not-found-400'])(
    'answered %s',
    (answer) => {
      it('leads to a fresh initialize, and the call is sent once on the new session', async () => {
        const s = await server({ unknownSession: answer, quiet: true });
        const events = new EventLog();
        const m = manager(s, events);
        await m.connectAll();
        const inits = s.counts.initialize;
        await s.expireSessions();
        const before = s.requests.length;
        expect(await m.callTool('r', 'echo', { text: 'x' })).toMatchObject(text('x'));
        expect(s.counts.initialize).toBe(inits + 1);
        expect(s.counts.calls['echo']).toBe(1);
        // refused by the old session (not run), then run once on the new one
        const calls = s.requests.slice(before).filter((r) => r === 'POST tools/call');
        expect(calls).toHaveLength(2);
        expect(m.list()[0]!.status).toBe('connected');
      });
    },
  );
});

describe('what the host asked of a session', () => {
  it('subscriptions and the logging level are restored after a reconnect and a new session; listen() streams end', async () => {
    const s = await server();
    const events = new EventLog();
    const m = manager(s, events, { enabled: true, ...FAST, healthCheckIntervalMs: 100 });
    await m.connectAll();
    await m.subscribeResource('r', 'doc://one');
    await m.setLoggingLevel('r', 'debug');
    const stream = await m.listen('r', { resourceSubscriptions: ['doc://two'] });
    const ended = (async () => {
      try {
        for await (const _ of stream.events) void _;
        return undefined;
      } catch (err) {
        return err;
      }
    })();
    expect(s.counts.subscribes).toEqual(['doc://one', 'doc://two']);
    expect(s.counts.levels).toEqual(['debug']);

    const lost = events.status('r', 'reconnecting');
    await s.stop();
    await lost;
    expect(await ended).toMatchObject({ code: 'MCP_DISCONNECTED' });
    const back = events.status('r', 'connected');
    await s.start();
    await back;
    // the subscription made through subscribeResource and the level are set again; the
    // listen() stream's own subscription ended with its stream
    expect(s.counts.subscribes).toEqual(['doc://one', 'doc://two', 'doc://one']);
    expect(s.counts.levels).toEqual(['debug', 'debug']);

    // an unsubscribed resource is not restored; a new level replaces the old one
    await m.unsubscribeResource('r', 'doc://one');
    await m.setLoggingLevel('r', 'warning');
    await s.expireSessions();
    await m.ping('r'); // renews the session
    expect(s.counts.subscribes).toEqual(['doc://one', 'doc://two', 'doc://one']);
    expect(s.counts.levels).toEqual(['debug', 'debug', 'warning', 'warning']);
    expect(m.list()[0]!.status).toBe('connected');
  });
});

describe('registry changes during a reconnect', () => {
  it('close, unregister and update end the reconnect: no connection survives them', async () => {
    const s = await server();
    const events = new EventLog();
    const opts = { enabled: true, ...FAST, maxAttempts: 100, healthCheckIntervalMs: 100 };
    const closing = manager(s, events, opts, ['closed']);
    const m = manager(s, events, opts, ['gone', 'updated', 'control']);
    await closing.connectAll();
    await m.connectAll();
    const lost = ['closed', 'gone', 'updated', 'control'].map((n) =>
      events.status(n, 'reconnecting'),
    );
    await s.stop();
    await Promise.all(lost);

    await closing.close();
    await m.unregister('gone');
    // the new declaration cannot connect (the server is down): the old one is put back,
    // pending, and its reconnect is over
    await expect(m.update('updated', { type: 'http', url: s.url })).rejects.toMatchObject({
      code: 'MCP_CONNECTION_FAILED',
    });
    const inits = s.counts.initialize;
    const back = events.status('control', 'connected');
    await s.start();
    await back;
    expect(s.counts.initialize).toBe(inits + 1);
    // Give any loop that survived the time to try: two of its longest waits. The control
    // reconnected within that window, so a surviving loop would have shown up too.
    await new Promise((r) => setTimeout(r, 2 * opts.maxDelayMs + 100));
    expect(s.counts.initialize).toBe(inits + 1);
    const statuses = Object.fromEntries(m.list().map((x) => [x.name, x.status]));
    expect(statuses).toEqual({ updated: 'pending', control: 'connected' });
    expect(closing.list()[0]!.status).not.toBe('connected');
  });

  it('after close() during a reconnect attempt the process exits on its own', async () => {
    const { startChild } = await import('../support/child-agent.js');
    const { fileURLToPath } = await import('node:url');
    const s = await server();
    const script = fileURLToPath(
      new URL('../fixtures/mcp/reconnect-close-child.mts', import.meta.url),
    );
    const child = startChild(script, {}, { args: [s.url] });
    cleanup.push(async () => void child.child.kill('SIGKILL'));
    expect(await child.line('connected')).toBe('now');
    const inits = s.counts.initialize;
    s.hang(true);
    await child.line('closed');
    expect(s.counts.initialize).toBe(inits); // held: never answered
    expect(s.requests.at(-1)).toBe('POST initialize'); // the attempt was in flight at close
    const t0 = performance.now();
    const exit = await child.exited;
    expect(exit, child.stderr()).toEqual({ code: 0, signal: null });
    // nothing was left to keep it alive: not the attempt's request (held by the server, with a
    // 30 s connect timeout), nor a timer of a reconnect or health check
    expect(performance.now() - t0).toBeLessThan(5_000);
    s.hang(false);
  });
});
