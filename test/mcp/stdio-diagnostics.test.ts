import { afterEach, describe, expect, it } from 'vitest';
import { MusterError, createAgent, scriptedModel } from '../../src/index.js';
import type { AgentEvent } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-client-manager.js';
import type { McpEvent } from '../../src/mcp/contracts/mcp-events.js';
import { collect } from '../support/run-helpers.js';
import { scriptedServer } from './support/stdio-scripted.js';
import type { ScriptedServer } from './support/stdio-scripted.js';

const CANARY = 'canary-stderr-secret-5b1e9d';

const servers: ScriptedServer[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.cleanup();
});

function server(flags: string[]): ScriptedServer {
  const s = scriptedServer(['--stderr-env=UPSTREAM_TOKEN', ...flags], { UPSTREAM_TOKEN: CANARY });
  servers.push(s);
  return s;
}

describe('a stdio server that exits says how', () => {
  it('exiting at start: the status names the exit code; diagnostics() has the redacted stderr', async () => {
    const s = server(['--exit-at-start=3']);
    const events: AgentEvent[] = [];
    const agent = createAgent({
      model: scriptedModel([{ text: 'ok' }]),
      mcpServers: { dies: s.config },
      mcp: { strictConfig: true, protocol: { mode: 'legacy' } },
      policy: { allow: ['mcp_connect:*'] },
      observability: { onEvent: (e) => void events.push(e) },
    });
    try {
      const run = await collect(agent.run({ input: 'x' }));
      const status = agent.mcp.list()[0]!;
      expect(status.status).toBe('failed');
      expect(status.error?.code).toBe('MCP_CONNECTION_FAILED');
      expect(status.error?.message).toContain("Server 'dies' exited with code 3 before answering");
      expect(status.error?.message).not.toContain('Connection closed');

      const diagnostics = agent.mcp.diagnostics('dies');
      expect(diagnostics.name).toBe('dies');
      expect(diagnostics.exit).toEqual({ code: 3, signal: null });
      expect(diagnostics.stderrTail).toContain('scripted: fatal at start');
      // the server printed its secret env value: the host sees it masked
      expect(diagnostics.stderrTail).toContain('env UPSTREAM_TOKEN=[redacted]');
      expect(diagnostics.stderrTail).not.toContain(CANARY);

      // stderr goes nowhere but diagnostics(): no event, status or error carries it
      const everything = JSON.stringify([events, run.events, run.error, agent.mcp.list()]);
      expect(everything).not.toContain(CANARY);
      expect(everything).not.toContain('fatal at start');
    } finally {
      await agent.close();
    }
  });

  it('stopped by a signal: the status names the signal', async () => {
    const s = server(['--kill-at-start']);
    const events: McpEvent[] = [];
    const manager = new McpClientManager(
      { dies: s.config },
      { strictConfig: true, protocol: { mode: 'legacy' }, onEvent: (e) => void events.push(e) },
    );
    try {
      const [summary] = await manager.connectAll();
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'MCP_CONNECTION_FAILED' } });
      expect(summary!.error!.message).toContain('was stopped by signal SIGKILL before answering');
      const diagnostics = manager.diagnostics('dies');
      expect(diagnostics.exit).toEqual({ code: null, signal: 'SIGKILL' });
      expect(diagnostics.stderrTail).toContain('scripted: killing itself');
      expect(diagnostics.stderrTail).not.toContain(CANARY);
      expect(JSON.stringify(events)).not.toContain(CANARY);
    } finally {
      await manager.close();
    }
  });

  it('a running server has no exit; an unknown name is INVALID_CONFIGURATION', async () => {
    const s = server([]);
    const manager = new McpClientManager(
      { live: s.config },
      { strictConfig: true, protocol: { mode: 'legacy' } },
    );
    try {
      await manager.connectAll();
      const deadline = performance.now() + 3000;
      while (
        !manager.diagnostics('live').stderrTail.includes('starting') &&
        performance.now() < deadline
      )
        await new Promise((resolve) => setTimeout(resolve, 10));
      const diagnostics = manager.diagnostics('live');
      expect(diagnostics.exit).toBeUndefined();
      expect(diagnostics.stderrTail).toContain('env UPSTREAM_TOKEN=[redacted]');
      let thrown: unknown;
      try {
        manager.diagnostics('nope');
      } catch (err) {
        thrown = err;
      }
      expect(MusterError.isInstance(thrown)).toBe(true);
      expect((thrown as MusterError).code).toBe('INVALID_CONFIGURATION');
    } finally {
      await manager.close();
    }
  });
});
