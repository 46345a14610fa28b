import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentOptions, McpServerConfig } from '../../src/index.js';
import { collect } from '../support/run-helpers.js';
import { alive, killError, scriptedServer, until } from './support/stdio-scripted.js';
import type { ScriptedServer } from './support/stdio-scripted.js';

/** Loose for a busy 2-core machine; the bound the issue asks for. */
const SETTLE_MS = 500;
/** How long a stopped process may take to be reaped (SIGTERM, then SIGKILL after 1 s). */
const REAP_MS = 3000;

const servers: ScriptedServer[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    for (const pid of s.pids()) if (alive(pid)) process.kill(pid, 'SIGKILL');
    s.cleanup();
  }
});

function agentWith(config: McpServerConfig, mcp: AgentOptions['mcp'] = {}) {
  return createAgent({
    model: scriptedModel([{ text: 'never reached' }]),
    mcpServers: { hung: config },
    mcp: { strictConfig: true, protocol: { mode: 'auto' }, ...mcp },
    policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  });
}

/**
 * Starts a run, waits until the fixture received `method` (its process is then stuck in it),
 * aborts, and measures how long the run takes to settle after the abort.
 */
async function abortDuring(server: ScriptedServer, method: string, mcp: AgentOptions['mcp'] = {}) {
  const agent = agentWith(server.config, mcp);
  const controller = new AbortController();
  try {
    const run = collect(agent.run({ input: 'x', signal: controller.signal }));
    expect(await until(() => server.methods().includes(method), 20_000)).toBe(true);
    const abortedAt = performance.now();
    controller.abort();
    const { error } = await run;
    const settledMs = performance.now() - abortedAt;
    return { error, settledMs, status: agent.mcp.list()[0]!.status };
  } finally {
    await agent.close();
  }
}

async function expectReaped(pids: number[]): Promise<void> {
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) {
    await until(() => !alive(pid), REAP_MS);
    expect(killError(pid)?.code).toBe('ESRCH');
  }
}

// The official client's `server/discover` probe reaches a stdio server in `auto` mode only
// after the `initialize` Muster sends first (docs/decisions.md, "First contact with a stdio
// server: `initialize` first"): here, by a server whose answer declares an extension
// (`--extension`), stopped and started again to be probed.

describe('an abort during the first contact of a stdio server', () => {
  it('a server hung on the protocol probe: the run settles at once and its processes are gone', async () => {
    const server = scriptedServer(['--extension', '--discover=hang']);
    servers.push(server);
    const { error, settledMs, status } = await abortDuring(server, 'server/discover');
    expect(error?.code).toBe('ABORTED');
    expect(settledMs).toBeLessThan(SETTLE_MS);
    // the run was aborted, not the server: it connects again at the next run
    expect(status).toBe('pending');
    // the first process answered `initialize`; the probe went to the one started again
    expect(server.pids()).toHaveLength(2);
    expect(server.methods()).toEqual(['initialize', 'server/discover']);
    await expectReaped(server.pids());
  });

  it('a server hung on initialize: the run settles at once; no process is left', async () => {
    const server = scriptedServer(['--initialize=hang']);
    servers.push(server);
    const { error, settledMs } = await abortDuring(server, 'initialize');
    expect(error?.code).toBe('ABORTED');
    expect(settledMs).toBeLessThan(SETTLE_MS);
    // `initialize` first, on the one process started
    expect(server.pids()).toHaveLength(1);
    expect(server.methods()).toEqual(['initialize']);
    await expectReaped(server.pids());
  });

  it('a server hung on its first listing: the run settles at once; no process is left', async () => {
    const server = scriptedServer(['--list=hang', '--ignore-sigterm']);
    servers.push(server);
    const { error, settledMs } = await abortDuring(server, 'tools/list');
    expect(error?.code).toBe('ABORTED');
    expect(settledMs).toBeLessThan(SETTLE_MS);
    expect(server.pids()).toHaveLength(1);
    await expectReaped(server.pids());
  });

  it('a hung server that ignores SIGTERM is killed too', async () => {
    const server = scriptedServer(['--initialize=hang', '--ignore-sigterm']);
    servers.push(server);
    const { error, settledMs } = await abortDuring(server, 'initialize');
    expect(error?.code).toBe('ABORTED');
    expect(settledMs).toBeLessThan(SETTLE_MS);
    await expectReaped(server.pids());
  });
});

describe('bounded connects', () => {
  it('a server hung on initialize fails within its connectTimeoutMs, naming the limit', async () => {
    const server = scriptedServer(['--initialize=hang']);
    servers.push(server);
    const agent = agentWith(
      { ...server.config, connectTimeoutMs: 800 },
      {
        protocol: { mode: 'legacy' },
      },
    );
    try {
      const started = performance.now();
      await collect(agent.run({ input: 'x' }));
      const elapsed = performance.now() - started;
      const status = agent.mcp.list()[0]!;
      expect(status.status).toBe('failed');
      expect(status.error).toMatchObject({ code: 'MCP_CONNECTION_FAILED' });
      expect(status.error?.message).toContain('connectTimeoutMs (800 ms)');
      expect(elapsed).toBeGreaterThanOrEqual(750);
      expect(elapsed).toBeLessThan(800 + 2500);
      await expectReaped(server.pids());
    } finally {
      await agent.close();
    }
  });

  it('a silent probe counts as legacy after probeTimeoutMs, and is re-sent probeMaxRetries times', async () => {
    const server = scriptedServer(['--extension', '--discover=silent']);
    servers.push(server);
    const agent = agentWith(server.config, {
      protocol: { mode: 'auto', probeTimeoutMs: 150, probeMaxRetries: 2 },
    });
    try {
      const started = performance.now();
      await agent.initialize();
      const elapsed = performance.now() - started;
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      // the first process answered `initialize` (an extension declared); the one started again
      // got the probe three times (one try and two re-sends), then `initialize` and the listing
      expect(server.methods()).toEqual([
        'initialize',
        'server/discover',
        'server/discover',
        'server/discover',
        'initialize',
        'tools/list',
      ]);
      expect(elapsed).toBeGreaterThanOrEqual(3 * 150 - 50);
      expect(elapsed).toBeLessThan(10_000);
    } finally {
      await agent.close();
    }
  });

  it('without probe options, a silent probe counts as legacy after 10 s, within the connect', async () => {
    const server = scriptedServer(['--extension', '--discover=silent']);
    servers.push(server);
    const agent = agentWith(
      { ...server.config, connectTimeoutMs: 20_000 },
      { protocol: { mode: 'auto' } },
    );
    try {
      const started = performance.now();
      await agent.initialize();
      const elapsed = performance.now() - started;
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      expect(server.methods().filter((m) => m === 'server/discover')).toHaveLength(1);
      expect(elapsed).toBeGreaterThanOrEqual(10_000 - 50);
      expect(elapsed).toBeLessThan(20_000);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('a server that exits at once fails both eras on two processes, not three', async () => {
    const server = scriptedServer(['--exit-at-start=3']);
    servers.push(server);
    const agent = agentWith(server.config);
    try {
      await agent.initialize();
      const status = agent.mcp.list()[0]!;
      expect(status.status).toBe('failed');
      expect(status.error).toMatchObject({ code: 'MCP_CONNECTION_FAILED' });
      // the first contact's `initialize` (ended), then the probe of the one started again
      // (ended): no legacy process after a failed legacy `initialize`
      expect(server.pids()).toHaveLength(2);
    } finally {
      await agent.close();
    }
  });

  // a legacy-only server declaring an extension is started again and probed: one that
  // answers the probe -32601 goes legacy on that process (the official client's fallback),
  // one that ends on it is started once more, legacy
  it.each([
    ['refuses the probe: legacy on its second process', [], 2],
    ['ends on the probe: legacy on a third, started for real', ['--discover=exit'], 3],
  ])('a legacy-only server that declares an extension and %s', async (_label, flags, pids) => {
    const server = scriptedServer(['--extension', ...flags]);
    servers.push(server);
    const agent = agentWith(server.config);
    try {
      await agent.initialize();
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      // the first contact's `initialize` (an extension), the probe, `initialize` again
      expect(server.pids()).toHaveLength(pids);
      expect(server.methods()).toEqual([
        'initialize',
        'server/discover',
        'initialize',
        'tools/list',
      ]);
    } finally {
      await agent.close();
    }
  });
});
