/**
 * Honest wording of two call failures (issue 25, item 3), over real stdio pipes and loopback
 * HTTP: a result whose structured content does not match the tool's output schema (the tool
 * ran, its result is invalid), and an expired HTTP session no new session could replace (the
 * server refused the call before dispatching it: not sent).
 */
import { describe, expect, it } from 'vitest';
import { MusterError, createAgent, scriptedModel } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { startLegacyOnlyHttpServer } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';
import { scriptedServer } from './support/stdio-scripted.js';

async function failure(p: Promise<unknown>): Promise<MusterError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(MusterError.isInstance(err)).toBe(true);
  return err as MusterError;
}

const legacy = { mode: 'legacy' } as const;

describe('item-03: a result that does not match the output schema', () => {
  it('item-03: says the tool ran and its result is invalid (executed: true), never "refused"', async () => {
    const s = scriptedServer(['--typed-tool']);
    const m = new McpClientManager({ s: s.config }, { strictConfig: true, protocol: legacy });
    try {
      const ok = await m.callTool('s', 'typed', { n: 1 });
      expect(ok.structuredContent).toEqual({ n: 1 });

      const mismatch = await failure(m.callTool('s', 'typed', { n: 'one' }));
      expect(mismatch.code).toBe('TOOL_EXECUTION_FAILED');
      expect(mismatch.details).toMatchObject({
        server: 's',
        reason: 'output-invalid',
        executed: true,
      });
      expect(mismatch.message).toMatch(/ran, but its result is invalid/);
      expect(mismatch.message).not.toMatch(/refused/);

      const missing = await failure(m.callTool('s', 'typed', { omit: true }));
      expect(missing.details).toMatchObject({ reason: 'output-invalid', executed: true });
      expect(missing.message).toMatch(/no structured content/);
      // each call reached the server exactly once: nothing was retried
      expect(s.methods().filter((x) => x === 'tools/call')).toHaveLength(3);
    } finally {
      await m.close();
      s.cleanup();
    }
  }, 30_000);

  it("item-03: the run's tool result and tool.completed say executed: true", async () => {
    const s = scriptedServer(['--typed-tool']);
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__s__typed', arguments: { n: 'one' } }] },
      { text: 'done' },
    ]);
    const agent = createAgent({
      model,
      mcpServers: { s: s.config },
      mcp: { strictConfig: true, protocol: legacy },
      policy: { allow: ['mcp_connect:s', 'mcp__s'] },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'go' }));
      expect(error).toBeUndefined();
      const done = ofType(events, 'tool.completed')[0]!;
      expect(done).toMatchObject({
        isError: true,
        executed: true,
        errorCode: 'TOOL_EXECUTION_FAILED',
      });
      expect(done.content).toMatch(/ran, but its result is invalid/);
      expect(done.content).not.toMatch(/refused/);
    } finally {
      await agent.close();
      s.cleanup();
    }
  }, 30_000);
});

describe('item-03: an expired HTTP session that no new session replaced', () => {
  it('item-03: a 404 the server answered is not-sent, not outcome unknown', async () => {
    let refuseInitialize = false;
    const http = await startLegacyOnlyHttpServer(undefined, {
      gate: (request) => {
        if (refuseInitialize && request === 'POST initialize') throw new Error('no new sessions');
      },
    });
    const m = new McpClientManager(
      { l: { type: 'http', url: http.url } },
      { strictConfig: true, protocol: legacy },
    );
    try {
      await m.connectAll();
      await http.expireSessions();
      refuseInitialize = true;
      const before = http.requests.length;
      const err = await failure(m.callTool('l', 'echo', { text: 'x' }));
      expect(err.code).toBe('TOOL_EXECUTION_FAILED');
      expect(err.details).toMatchObject({ server: 'l', reason: 'not-sent' });
      expect(err.message).toMatch(/was not sent/);
      expect(err.message).not.toMatch(/may or may not/);
      // the call met the 404, the renewal was refused, and the call went no further
      const after = http.requests.slice(before);
      expect(after.filter((r) => r === 'POST tools/call')).toHaveLength(1);
      expect(after).toContain('POST initialize');
    } finally {
      await m.close();
      await http.close();
    }
  }, 30_000);
});
