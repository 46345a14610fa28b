import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type {
  Agent,
  AgentOptions,
  McpServerConfig,
  McpStdioServerConfig,
} from '../../src/index.js';
import { normalizedKey } from '../../src/mcp/config/config-sources.js';
import { FileVerdictCache } from '../../src/mcp/connection/verdict-cache.js';
import { readCountingLog, stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';
import { startTasksFixture } from './tasks/tasks-fixture.js';

// The era of a stdio server in `auto` mode (docs/decisions.md, "Dual-era stdio servers
// without extensions speak the legacy era" and "First contact with a stdio server: `initialize`
// first"): the plain `initialize` goes first; a server that answers it and declares no
// extension is spoken to in the legacy era on that one process; one that declares an extension
// is started again and stays modern, and a modern-only server (it refuses `initialize`) goes
// modern on the same process.

const open = (extra: Partial<AgentOptions>): AgentOptions => ({
  mcp: { strictConfig: true },
  policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  ...extra,
});

/** An agent answering "ok" with `config` as its one server, named `name`. */
const answering = (name: string, config: McpServerConfig): Agent =>
  createAgent(open({ model: scriptedModel([{ text: 'ok' }]), mcpServers: { [name]: config } }));

/** A counting-server declaration logging to a fresh file, and that file. */
function counting(...flags: string[]): { config: McpServerConfig; log: string } {
  const log = join(mkdtempSync(join(tmpdir(), 'muster-era-')), 'log');
  return {
    config: stdioConfig('counting-server.mjs', [`--log=${log}`, '--log-requests', ...flags]),
    log,
  };
}

/**
 * The processes started and the requests read, from a counting-server log. A modern
 * connection's `subscriptions/listen` is left out: the client sends it beside its first
 * requests, in no fixed order with them.
 */
async function activity(log: string): Promise<{ starts: number; requests: string[] }> {
  const lines = await readCountingLog(log);
  return {
    starts: lines.filter((l) => l.event === 'start').length,
    requests: lines.map((l) => l.event as string).filter(isRequest),
  };
}

const isRequest = (event: unknown) =>
  event !== 'start' && event !== 'exit' && event !== 'subscriptions/listen';

/** The requests each process read (as {@link activity} counts them), by process, in start order. */
async function requestsByProcess(log: string): Promise<string[][]> {
  const lines = await readCountingLog(log);
  const pids = [...new Set(lines.map((l) => l.pid))];
  return pids.map((pid) =>
    lines.filter((l) => l.pid === pid && isRequest(l.event)).map((l) => l.event as string),
  );
}

/** The verdict saved in this test file's MUSTER_HOME for `config`. */
function savedVerdict(config: McpServerConfig): Promise<unknown> {
  const cache = new FileVerdictCache(process.env['MUSTER_HOME']!);
  return cache.get(FileVerdictCache.keyOf(normalizedKey(config)));
}

describe('the era of a stdio server in auto mode', () => {
  it('a server that declares the Tasks extension negotiates 2026-07-28', async () => {
    const fixture = await startTasksFixture('stdio');
    const agent = answering('t', fixture.config);
    try {
      await agent.send('x');
      expect(agent.mcp.list()[0]).toMatchObject({
        status: 'connected',
        era: 'modern',
        protocolVersion: '2026-07-28',
      });
      expect(await savedVerdict(fixture.config)).toMatchObject({ kind: 'modern' });
    } finally {
      await agent.close();
      await fixture.stop();
    }
  });

  it('a server whose initialize answer declares an extension is started again and probed: modern', async () => {
    const { config, log } = counting('--extension=io.example/widgets');
    const agent = answering('x', config);
    try {
      await agent.send('x');
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'modern' });
      // the first process answered the legacy `initialize` (the extension in its
      // capabilities) and was stopped; the second was probed and is the modern connection
      const [first, second, ...more] = await requestsByProcess(log);
      expect(more).toEqual([]);
      expect(first).toEqual(['initialize']);
      expect(second![0]).toBe('server/discover');
      expect(second).not.toContain('initialize');
      const saved = await savedVerdict(config);
      expect(saved).toMatchObject({ kind: 'modern' });
      expect(saved).not.toHaveProperty('legacyRefused');
      expect(saved).not.toHaveProperty('legacyFailed');
    } finally {
      await agent.close();
    }
  });

  it('a dual-era server without extensions is legacy on its one process, never probed; the verdict saved is used next time', async () => {
    const { config, log } = counting('--extras');
    const asked: unknown[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'mcp__c__echo', arguments: { text: 'hi' } },
          { name: 'mcp__c__ask', arguments: {} },
          { name: 'mcp__c__grow', arguments: {} },
        ],
      },
      { text: 'first done' },
      { toolCalls: [{ name: 'mcp__c__grown-1', arguments: {} }] },
      { text: 'second done' },
    ]);
    const first = createAgent(
      open({
        model,
        mcp: {
          strictConfig: true,
          handlers: {
            elicitation: async (request) => {
              asked.push(request.message);
              return { action: 'accept', content: { pick: 'b' } };
            },
          },
        },
        mcpServers: { c: config },
      }),
    );
    try {
      const one = await collect(first.run({ input: 'x' }));
      expect(one.error).toBeUndefined();
      expect(first.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      expect(first.mcp.list()[0]!.protocolVersion).not.toBe('2026-07-28');
      expect(ofType(one.events, 'tool.completed').map((e) => e.content)).toEqual([
        'counting: hi',
        'ask accept {"pick":"b"}',
        'grown-1',
      ]);
      // the legacy `elicitation/create` reached the host's handler
      expect(asked).toEqual(['Pick one.']);
      // the list change of the legacy era (an unsolicited notification) marks the tools stale
      await expect
        .poll(() => first.mcp.list()[0]!.tools.every((t) => t.stale), { timeout: 15_000 })
        .toBe(true);
      const two = await collect(first.run({ input: 'y' }));
      expect(two.error).toBeUndefined();
      expect(ofType(two.events, 'tool.completed').map((e) => e.content)).toEqual(['grown-1']);
      // one process, and one handshake: `initialize` first, no `server/discover` at all
      const seen = await activity(log);
      expect(seen.starts).toBe(1);
      expect(seen.requests.slice(0, 2)).toEqual(['initialize', 'tools/list']);
      expect(seen.requests).not.toContain('server/discover');
      expect(await savedVerdict(config)).toEqual({ kind: 'legacy' });
    } finally {
      await first.close();
    }
    const before = (await activity(log)).requests.length;
    const second = answering('c', config);
    try {
      await second.send('z');
      expect(second.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      const seen = await activity(log);
      expect(seen.starts).toBe(2);
      // the remembered verdict: the same handshake, on the second agent's process
      expect(seen.requests.slice(before)).toEqual(['initialize', 'tools/list']);
    } finally {
      await second.close();
    }
  }, 30_000);

  it('a modern-only server stays modern on its one process, and is not tried in the legacy era again', async () => {
    const { config, log } = counting('--modern-only');
    const first = answering('m', config);
    try {
      await first.send('x');
      expect(first.mcp.list()[0]).toMatchObject({
        status: 'connected',
        era: 'modern',
        protocolVersion: '2026-07-28',
      });
      const seen = await activity(log);
      expect(seen.starts).toBe(1);
      // the legacy handshake was refused; the client probed the same process and went modern
      expect(seen.requests.slice(0, 2)).toEqual(['initialize', 'server/discover']);
      expect(seen.requests).toContain('tools/list');
      expect(seen.requests.filter((r) => r === 'initialize')).toHaveLength(1);
      expect(await savedVerdict(config)).toMatchObject({ kind: 'modern', legacyRefused: true });
    } finally {
      await first.close();
    }
    const before = (await activity(log)).requests.length;
    const second = answering('m', config);
    try {
      await second.send('y');
      expect(second.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'modern' });
      expect((await activity(log)).requests.slice(before)).toEqual(['tools/list']);
    } finally {
      await second.close();
    }
  });

  it('a modern verdict saved before the choice is read as legacy, and saved so', async () => {
    const { config, log } = counting();
    const cache = new FileVerdictCache(process.env['MUSTER_HOME']!);
    const discover = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };
    await cache.set(FileVerdictCache.keyOf(normalizedKey(config)), { kind: 'modern', discover });
    const agent = answering('c', config);
    try {
      await agent.send('x');
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      expect((await activity(log)).requests).toEqual(['initialize', 'tools/list']);
      expect(await savedVerdict(config)).toEqual({ kind: 'legacy' });
    } finally {
      await agent.close();
    }
  });

  it('a pin of 2026-07-28 keeps a dual-era server without extensions modern', async () => {
    const { config, log } = counting();
    const agent = createAgent(
      open({
        model: scriptedModel([{ text: 'ok' }]),
        mcp: { strictConfig: true, protocol: { mode: { pin: '2026-07-28' } } },
        mcpServers: { c: config },
      }),
    );
    try {
      await agent.send('x');
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'modern' });
      expect((await activity(log)).requests).not.toContain('initialize');
    } finally {
      await agent.close();
    }
  });
});

describe('the era trial of a stdio server in auto mode, when it goes wrong', () => {
  it('a dual-era server slow to start is legacy on its one process', async () => {
    const { config, log } = counting('--start-delay-ms=1500');
    const agent = createAgent(
      open({
        model: scriptedModel([
          { toolCalls: [{ name: 'mcp__c__echo', arguments: { text: 'late' } }] },
          { text: 'ok' },
        ]),
        // `initialize` waits in the pipe until the server reads it (within connectTimeoutMs;
        // a probe timeout shorter than the start does not cut it)
        mcp: { strictConfig: true, protocol: { mode: 'auto', probeTimeoutMs: 500 } },
        mcpServers: { c: config },
      }),
    );
    try {
      const run = await collect(agent.run({ input: 'x' }));
      expect(run.error).toBeUndefined();
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'legacy' });
      expect(ofType(run.events, 'tool.completed').map((e) => e.content)).toEqual([
        'counting: late',
      ]);
      const seen = await activity(log);
      expect(seen.starts).toBe(1);
      expect(seen.requests.slice(0, 2)).toEqual(['initialize', 'tools/list']);
      expect(await savedVerdict(config)).toEqual({ kind: 'legacy' });
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('a dual-era server whose initialize answer the client rejects is started again, modern, and not marked as refusing', async () => {
    const { config, log } = counting('--bad-initialize-version');
    const agent = answering('c', config);
    try {
      await agent.send('x');
      expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'modern' });
      // the server finished a legacy handshake on the first process: nothing modern went there
      expect(await requestsByProcess(log)).toEqual([
        ['initialize'],
        ['server/discover', 'tools/list'],
      ]);
      const saved = await savedVerdict(config);
      expect(saved).toMatchObject({ kind: 'modern', legacyFailed: true });
      expect(saved).not.toHaveProperty('legacyRefused');
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('a modern-only server silent on initialize fails at connectTimeoutMs, and the error says how to pin it', async () => {
    const { config, log } = counting('--modern-only', '--silent-on-initialize');
    const agent = createAgent(
      open({
        model: scriptedModel([{ text: 'ok' }]),
        mcpServers: { m: { ...(config as McpStdioServerConfig), connectTimeoutMs: 1_500 } },
      }),
    );
    try {
      await agent.send('x');
      const status = agent.mcp.list()[0]!;
      expect(status.status).toBe('failed');
      expect(status.error).toMatchObject({ code: 'MCP_CONNECTION_FAILED' });
      expect(status.error?.message).toContain('connectTimeoutMs (1500 ms)');
      expect(status.error?.message).toContain("mcp.protocol.mode { pin: '2026-07-28' }");
      // one process, stopped; nothing was tried after the `initialize` it never answered
      const seen = await activity(log);
      expect(seen.starts).toBe(1);
      expect(seen.requests).toEqual(['initialize']);
      expect(await savedVerdict(config)).toBeUndefined();
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('an old modern verdict read as legacy, of a modern-only server that ends on initialize, is dropped and negotiated again', async () => {
    const { config, log } = counting('--modern-only', '--exit-on-initialize');
    const cache = new FileVerdictCache(process.env['MUSTER_HOME']!);
    const discover = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };
    await cache.set(FileVerdictCache.keyOf(normalizedKey(config)), { kind: 'modern', discover });
    const first = answering('m', config);
    try {
      await first.send('x');
      expect(first.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'modern' });
      // the old verdict's `initialize` (ends), the negotiation's trial (ends), probed: modern
      const seen = await activity(log);
      expect(seen.starts).toBe(3);
      expect(seen.requests).toEqual(['initialize', 'initialize', 'server/discover', 'tools/list']);
      expect(await savedVerdict(config)).toMatchObject({ kind: 'modern', legacyFailed: true });
    } finally {
      await first.close();
    }
    // the verdict learned keeps it modern: no `initialize` again
    const before = await activity(log);
    const second = answering('m', config);
    try {
      await second.send('y');
      expect(second.mcp.list()[0]).toMatchObject({ status: 'connected', era: 'modern' });
      const seen = await activity(log);
      expect(seen.starts).toBe(before.starts + 1);
      expect(seen.requests.slice(before.requests.length)).toEqual(['tools/list']);
    } finally {
      await second.close();
    }
  }, 30_000);
});
