import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import type { McpEvent } from '../../src/mcp/mcp-entry.js';
import { EventLog, allGone, measured, timed, waitFor, within } from './support/fault-timing.js';
import { faultLog, faultyStdio, readFaultLog, startFaultyHttp } from './support/faulty-servers.js';
import type { FaultyHttp } from './support/faulty-servers.js';
import { FAST_RECONNECT, managerOptions } from './support/pending-options.js';
import type { FaultReconnectOptions, FaultServerConfig } from './support/pending-options.js';

// Registry changes that race a connect or a reconnect: register or update while a server
// connects or reconnects, close while it reconnects. No connection may survive its
// declaration, and nothing may reject unhandled.

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeAll(() => void process.on('unhandledRejection', onUnhandled));
afterAll(() => void process.off('unhandledRejection', onUnhandled));
afterEach(() => {
  expect(unhandled.splice(0)).toEqual([]);
});

const RECONNECT: FaultReconnectOptions = {
  ...FAST_RECONNECT,
  healthCheckIntervalMs: 100,
  healthCheckTimeoutMs: 500,
};

function manager(servers: Record<string, FaultServerConfig>, reconnect?: FaultReconnectOptions) {
  const log = new EventLog<McpEvent>();
  const m = new McpClientManager(
    servers,
    managerOptions({
      strictConfig: true,
      protocol: { mode: 'legacy' },
      onEvent: log.push,
      ...(reconnect ? { reconnect } : {}),
    }),
  );
  return { manager: m, log };
}

const textOf = (result: { content: unknown }) =>
  (result.content as { type: string; text: string }[])[0]?.text;

describe('registry changes during a connect', () => {
  it('register while another server connects: both end connected, each on one process', async () => {
    const slowLog = faultLog('slow');
    const otherLog = faultLog('other');
    const { manager: m, log } = manager({
      slow: faultyStdio({ mode: 'slow-start', delayMs: 1_000, log: slowLog }),
    });
    try {
      const connecting = m.connectAll();
      await log.status('slow', 'connecting');
      const registering = await timed(m.register('other', faultyStdio({ log: otherLog })));
      expect(registering.value?.status).toBe('connected');
      expect(measured('register during a connect', registering.ms)).toBeLessThan(3_000);
      const summaries = await connecting;
      expect(summaries.find((s) => s.name === 'slow')?.status).toBe('connected');
      expect(textOf(await m.callTool('slow', 'echo', { text: 's' }))).toBe('s');
      expect(textOf(await m.callTool('other', 'echo', { text: 'o' }))).toBe('o');
      expect((await readFaultLog(slowLog)).starts).toHaveLength(1);
      expect((await readFaultLog(otherLog)).starts).toHaveLength(1);
    } finally {
      await m.close();
    }
    await allGone([
      ...(await readFaultLog(slowLog)).starts,
      ...(await readFaultLog(otherLog)).starts,
    ]);
  });

  it('update while the server connects: the old connect leaves no process, the new one serves', async () => {
    const oldLog = faultLog('old');
    const newLog = faultLog('new');
    const { manager: m, log } = manager({
      s: faultyStdio({ mode: 'slow-start', delayMs: 1_000, log: oldLog }),
    });
    try {
      const connecting = m.connectAll();
      connecting.catch(() => undefined);
      await log.status('s', 'connecting');
      await waitFor(async () => (await readFaultLog(oldLog)).starts.length > 0, 'the old process');
      const updating = await timed(m.update('s', faultyStdio({ log: newLog })));
      expect(updating.value?.status).toBe('connected');
      // it may wait for the connect in flight (1 s of slow start), not for connectTimeoutMs
      expect(measured('update during a connect', updating.ms)).toBeLessThan(5_000);
      await connecting.then(
        () => undefined,
        () => undefined,
      );
      // the connection of the old declaration did not survive it
      await allGone((await readFaultLog(oldLog)).starts);
      expect(m.list().find((s) => s.name === 's')?.status).toBe('connected');
      expect(textOf(await m.callTool('s', 'count', {}))).toBe('call 1');
      expect((await readFaultLog(newLog)).calls.map((c) => c.tool)).toEqual(['count']);
      expect((await readFaultLog(oldLog)).calls).toEqual([]);
    } finally {
      await m.close();
    }
  });
});

describe('registry changes during a reconnect', () => {
  let old: FaultyHttp;
  let replacement: FaultyHttp;
  beforeAll(async () => {
    old = await startFaultyHttp({ name: 'old' });
    replacement = await startFaultyHttp({ name: 'replacement' });
  });
  afterAll(async () => {
    await old.close();
    await replacement.close();
  });

  it('update and register while a server reconnects: the new declaration wins for good', async () => {
    const { manager: m, log } = manager({ f: { type: 'http', url: old.url } }, RECONNECT);
    try {
      await m.connectAll();
      const from = log.stamped.length;
      await old.stop();
      await within(log.status('f', 'reconnecting', from), 10_000, 'reconnecting');
      const registered = await m.register('g', faultyStdio({ name: 'g' }));
      expect(registered.status).toBe('connected');
      const updating = await timed(m.update('f', { type: 'http', url: replacement.url }));
      expect(updating.value?.status).toBe('connected');
      expect(measured('update during a reconnect', updating.ms)).toBeLessThan(3_000);
      const initializesBefore = old.counts.initialize;
      await old.start();
      // give the old reconnect loop its backoff and then some: it must have ended
      await new Promise((r) => setTimeout(r, RECONNECT.maxDelayMs! * 3));
      expect(old.counts.initialize).toBe(initializesBefore);
      expect(textOf(await m.callTool('f', 'count', {}))).toBe('call 1');
      expect(replacement.counts.calls['count']).toBe(1);
      expect(old.counts.calls['count']).toBeUndefined();
      expect(m.list().find((s) => s.name === 'f')?.status).toBe('connected');
      expect(textOf(await m.callTool('g', 'echo', { text: 'g' }))).toBe('g');
    } finally {
      await m.close();
    }
  });

  it('close while a stdio server reconnects: close settles promptly, no process survives', async () => {
    const file = faultLog('close-reconnect');
    // the first process works; every restart hangs in initialize, so the reconnect is in flight
    const server = faultyStdio({ log: file, restartMode: 'hang-init' });
    const { manager: m, log } = manager({ s: server }, RECONNECT);
    await m.connectAll();
    const [first] = (await readFaultLog(file)).starts;
    process.kill(first!, 'SIGKILL');
    await within(log.status('s', 'reconnecting'), 10_000, 'reconnecting');
    await waitFor(async () => (await readFaultLog(file)).starts.length > 1, 'a reconnect process');
    const closed = await timed(m.close());
    expect(closed.error).toBeUndefined();
    expect(measured('close during a reconnect', closed.ms)).toBeLessThan(3_000);
    const startsAtClose = (await readFaultLog(file)).starts.length;
    await allGone((await readFaultLog(file)).starts);
    // nothing reconnects after close
    await new Promise((r) => setTimeout(r, RECONNECT.maxDelayMs! * 3));
    expect((await readFaultLog(file)).starts).toHaveLength(startsAtClose);
    expect(log.events.filter((e) => e.type === 'mcp.server.status').at(-1)?.status).not.toBe(
      'connected',
    );
  });
});
