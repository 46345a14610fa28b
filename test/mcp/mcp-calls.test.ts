import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentOptions } from '../../src/index.js';
import { readCountingLog, stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

const open = (extra: Partial<AgentOptions>): AgentOptions => ({
  mcp: { strictConfig: true },
  policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  ...extra,
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP calls', () => {
  it('validates arguments against the JSON Schema before sending: an invalid call never reaches the server', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'muster-count-')), 'log');
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'mcp__c__add', arguments: { a: 'two', b: 3 } },
          { name: 'mcp__c__add', arguments: { a: 2, b: 3 } },
        ],
      },
      { text: 'ok' },
    ]);
    const agent = createAgent(
      open({ model, mcpServers: { c: stdioConfig('counting-server.mjs', [`--log=${log}`]) } }),
    );
    try {
      const { events } = await collect(agent.run({ input: 'x' }));
      const done = ofType(events, 'tool.completed');
      expect(done[0]).toMatchObject({ errorCode: 'TOOL_ARGUMENTS_INVALID', executed: false });
      expect(done[0]!.content).toContain('a');
      expect(done[1]).toMatchObject({ isError: false, content: '5' });
    } finally {
      await agent.close();
    }
  });

  it('close() reaps every child process, probes included, and is idempotent', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'muster-count-')), 'log');
    const agent = createAgent(
      open({
        model: scriptedModel([{ text: 'ok' }]),
        mcpServers: {
          a: stdioConfig('counting-server.mjs', [`--log=${log}`, '--name=a']),
          b: stdioConfig('counting-server.mjs', [`--log=${log}`, '--name=b']),
        },
      }),
    );
    await agent.send('x');
    const pids = (await readCountingLog(log)).filter((e) => e.event === 'start').map((e) => e.pid);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    await Promise.all([agent.close(), agent.close()]);
    await expect.poll(() => pids.filter(alive), { timeout: 15_000 }).toEqual([]);
  });

  it('keeps isError results as errors the model reads', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__fs__read_text_file', arguments: { path: '/etc/hostname' } }] },
      { text: 'ok' },
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'muster-fs-'));
    const { filesystemStdioConfig } = await import('../support/mcp-fixtures.js');
    const agent = createAgent(open({ model, mcpServers: { fs: filesystemStdioConfig(dir) } }));
    try {
      const { events } = await collect(agent.run({ input: 'x' }));
      const done = ofType(events, 'tool.completed')[0]!;
      expect(done).toMatchObject({ isError: true, executed: true });
      expect(done.errorCode).toBeUndefined();
      expect(done.content).toContain('Access denied');
    } finally {
      await agent.close();
    }
  });
});

describe('protocol verdicts', () => {
  it('the first contact in auto mode negotiates on the real process; a second agent reuses the saved verdict', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'muster-count-')), 'log');
    const config = { c: stdioConfig('counting-server.mjs', [`--log=${log}`]) };
    const first = createAgent(
      open({ model: scriptedModel([{ text: 'one' }]), mcpServers: config }),
    );
    await first.send('x');
    // a dual-era server without extensions speaks the legacy era (docs/decisions.md)
    expect(first.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
    await first.close();
    // one process: `server/discover` went to the real server, no throwaway probe process
    expect((await readCountingLog(log)).filter((e) => e.event === 'start')).toHaveLength(1);
    const second = createAgent(
      open({ model: scriptedModel([{ text: 'two' }]), mcpServers: config }),
    );
    try {
      await second.send('y');
      expect((await readCountingLog(log)).filter((e) => e.event === 'start')).toHaveLength(2);
      expect(second.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
    } finally {
      await second.close();
    }
  });

  it('a legacy server that would end on the probe is not probed: initialized plainly on its one process', async () => {
    const { faultyStdio, faultLog, readFaultLog } =
      await import('../faults/support/faulty-servers.js');
    const file = faultLog('exit-on-probe');
    const config = { p: faultyStdio({ mode: 'exit-on-probe', log: file }) };
    const first = createAgent(
      open({ model: scriptedModel([{ text: 'one' }]), mcpServers: config }),
    );
    try {
      await first.send('x');
      expect(first.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      // `initialize` first: the server never saw the `server/discover` it ends on
      expect((await readFaultLog(file)).starts).toHaveLength(1);
    } finally {
      await first.close();
    }
    const second = createAgent(
      open({ model: scriptedModel([{ text: 'two' }]), mcpServers: config }),
    );
    try {
      await second.send('y');
      expect(second.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      expect((await readFaultLog(file)).starts).toHaveLength(2); // the legacy verdict was saved
    } finally {
      await second.close();
    }
  });

  it('a stale saved verdict is dropped and the protocol negotiated again', async () => {
    const { FileVerdictCache } = await import('../../src/mcp/connection/verdict-cache.js');
    const { normalizedKey } = await import('../../src/mcp/config/config-sources.js');
    const config = stdioConfig('basic-server.mjs', ['--name=stale']);
    const cache = new FileVerdictCache(process.env['MUSTER_HOME']!);
    const key = FileVerdictCache.keyOf(normalizedKey(config));
    await cache.set(key, { kind: 'modern', discover: { bogus: true } });
    const agent = createAgent(
      open({ model: scriptedModel([{ text: 'ok' }]), mcpServers: { s: config } }),
    );
    try {
      await agent.send('x');
      // negotiated again: a dual-era server without extensions speaks the legacy era
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      const fresh = new FileVerdictCache(process.env['MUSTER_HOME']!);
      expect(await fresh.get(key)).toEqual({ kind: 'legacy' });
    } finally {
      await agent.close();
    }
  });

  it('a reconnect reuses the first verdict: no second protocol probe process', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'muster-count-')), 'log');
    const agent = createAgent(
      open({
        model: scriptedModel([{ text: 'one' }, { text: 'two' }]),
        mcpServers: { c: stdioConfig('counting-server.mjs', [`--log=${log}`]) },
      }),
    );
    try {
      await agent.send('x');
      const first = (await readCountingLog(log)).filter((e) => e.event === 'start');
      expect(first).toHaveLength(1); // auto negotiates on the real process
      const era = agent.mcp.list()[0]!.era;
      expect(era).toBe('legacy'); // a dual-era server without extensions (docs/decisions.md)
      process.kill(first.at(-1)!.pid, 'SIGKILL');
      await expect.poll(() => agent.mcp.list()[0]!.status, { timeout: 15_000 }).toBe('failed');
      await agent.send('y');
      const all = (await readCountingLog(log)).filter((e) => e.event === 'start');
      expect(all).toHaveLength(2); // the reconnect starts one process: the verdict was kept
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era });
    } finally {
      await agent.close();
    }
  });
});
