import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentOptions } from '../../src/index.js';
import { readCountingLog, stdioConfig } from '../support/mcp-fixtures.js';
import { collect } from '../support/run-helpers.js';

// Concurrency around connections: one connect per server at a time, and nothing that is
// closed, unregistered or aborted may keep a child process alive.

function counting(name: string) {
  const log = join(mkdtempSync(join(tmpdir(), 'muster-race-')), 'log');
  const config = stdioConfig('counting-server.mjs', [
    `--log=${log}`,
    '--log-exit',
    `--name=${name}`,
  ]);
  const counts = async () => {
    const entries = await readCountingLog(log);
    return {
      starts: entries.filter((e) => e.event === 'start').length,
      exits: entries.filter((e) => e.event === 'exit').length,
    };
  };
  return { config, counts };
}

const options = (extra: Partial<AgentOptions>): AgentOptions => ({
  mcp: { strictConfig: true, protocol: { mode: 'legacy' } },
  policy: { allow: ['mcp_connect:*'] },
  ...extra,
});

describe('connection races', () => {
  it('two concurrent runs connect a server once and both see its tools', async () => {
    const srv = counting('two-runs');
    const model = scriptedModel([{ text: 'a' }, { text: 'b' }]);
    const agent = createAgent(options({ model, mcpServers: { s: srv.config } }));
    await Promise.all([collect(agent.run({ input: '1' })), collect(agent.run({ input: '2' }))]);
    expect(model.requests.map((r) => r.tools.some((t) => t.name === 'mcp__s__echo'))).toEqual([
      true,
      true,
    ]);
    await agent.close();
    expect((await srv.counts()).starts).toBe(1);
    await expect.poll(srv.counts, { timeout: 15_000 }).toEqual({ starts: 1, exits: 1 });
  });

  it('close() during initialize() leaves no connected server and no child process', async () => {
    const srv = counting('close-init');
    const agent = createAgent(options({ model: scriptedModel([]), mcpServers: { s: srv.config } }));
    const init = agent.initialize().catch((e: unknown) => e);
    await agent.close();
    await init;
    expect(agent.mcp.list()[0]?.status).not.toBe('connected');
    const { starts } = await srv.counts();
    await expect.poll(srv.counts, { timeout: 15_000 }).toEqual({ starts, exits: starts });
  });

  it('a run aborted while a server connects leaves it pending, and the next run connects it', async () => {
    const srv = counting('abort');
    const ac = new AbortController();
    const agent = createAgent(
      options({
        model: scriptedModel([{ text: 'a' }, { text: 'b' }]),
        mcpServers: { s: srv.config },
        observability: {
          onEvent: (e) =>
            void (e.type === 'mcp.server.status' && e.status === 'connecting' && ac.abort()),
        },
      }),
    );
    try {
      const first = await collect(agent.run({ input: '1', signal: ac.signal }));
      expect(first.error).toMatchObject({ code: 'ABORTED' });
      expect(agent.mcp.list()[0]?.status).toBe('pending');
      await agent.send('2');
      expect(agent.mcp.list()[0]?.status).toBe('connected');
    } finally {
      await agent.close();
    }
  });

  it('a server that fails to start stays failed and is not respawned by later runs', async () => {
    const agent = createAgent(
      options({
        model: scriptedModel([{ text: 'a' }, { text: 'b' }]),
        mcpServers: { bad: stdioConfig('fail-start-server.mjs') },
      }),
    );
    try {
      const first = await collect(agent.run({ input: '1' }));
      const second = await collect(agent.run({ input: '2' }));
      const statuses = (events: typeof first.events) =>
        events
          .filter((e) => e.type === 'mcp.server.status')
          .map((e) => (e as { status: string }).status);
      expect(statuses(first.events)).toEqual(['connecting', 'failed']);
      expect(statuses(second.events)).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});
