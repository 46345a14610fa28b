/**
 * A `tools/call` result is checked by the client's own codec, once per call, with the schema
 * built once (src/mcp/client/call-result-schema.ts), not rebuilt per call by a failing parse of
 * `undefined` (what `Client.callTool()` does through `request()`). Real stdio servers: the
 * basic fixture (an SDK server, legacy era in `auto`) and the hand-written scripted one.
 */
import { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, MusterError, scriptedModel } from '../../src/index.js';
import type { Agent } from '../../src/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';
import { scriptedServer } from './support/stdio-scripted.js';
import type { ScriptedServer } from './support/stdio-scripted.js';

interface Codec {
  validateResult(method: string, raw: unknown): unknown;
}

/** The legacy era's codec: a client not connected yet resolves to it, as the client does. */
const legacyCodec = (
  new Client({ name: 't', version: '0' }) as unknown as { _wireCodec(): Codec }
)._wireCodec();
const original = Object.getOwnPropertyDescriptor(legacyCodec, 'validateResult')!;

/** Counts what the codec is asked about `tools/call` results while it is watched. */
function watchCodec(): { probes: number; checks: number } {
  const seen = { probes: 0, checks: 0 };
  const validate = original.value as Codec['validateResult'];
  legacyCodec.validateResult = (method, raw) => {
    if (method === 'tools/call') {
      if (raw === undefined) seen.probes++;
      else seen.checks++;
    }
    return validate.call(legacyCodec, method, raw);
  };
  return seen;
}
afterEach(() => {
  Object.defineProperty(legacyCodec, 'validateResult', original);
});

describe('tools/call results on a legacy connection', () => {
  let agent: Agent;
  let scripted: ScriptedServer;
  beforeAll(async () => {
    scripted = scriptedServer(['--malformed-tool']);
    agent = createAgent({
      model: scriptedModel(
        Array.from(
          { length: 10 },
          () => (request: { messages: readonly { role: string }[] }) =>
            request.messages.at(-1)?.role === 'tool'
              ? { text: 'done' }
              : { toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'turn' } }] },
        ),
      ),
      mcp: { strictConfig: true },
      mcpServers: { basic: stdioConfig('basic-server.mjs'), scripted: scripted.config },
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
    });
    await agent.initialize();
  });
  afterAll(async () => {
    await agent?.close();
    scripted?.cleanup();
  });

  it('are checked once each by the codec, never probed with undefined (direct calls and a turn)', async () => {
    expect(agent.mcp.list().map((s) => [s.name, s.status])).toEqual([
      ['basic', 'connected'],
      ['scripted', 'connected'],
    ]);
    const seen = watchCodec();
    for (let i = 0; i < 5; i++) {
      const result = await agent.mcp.callTool('basic', 'echo', { text: `call ${i}` });
      expect(result.content).toEqual([{ type: 'text', text: `default: call ${i}` }]);
    }
    const { events, error } = await collect(agent.run({ input: 'one turn' }));
    expect(error).toBeUndefined();
    expect(ofType(events, 'tool.completed').map((e) => [e.isError, e.content])).toEqual([
      [false, 'default: turn'],
    ]);
    expect(seen).toEqual({ probes: 0, checks: 6 });
  });

  it('a result the legacy schema refuses fails the call, typed; one without content gains []', async () => {
    const seen = watchCodec();
    const failure = await agent.mcp.callTool('scripted', 'malformed', { kind: 'content' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(MusterError);
    // as through callTool(): the client's INVALID_RESULT, with the schema's own words
    expect(failure).toMatchObject({
      code: 'TOOL_EXECUTION_FAILED',
      details: { server: 'scripted', sdkCode: 'INVALID_RESULT' },
    });
    expect((failure as Error).message).toMatch(/unusable result: Invalid result for tools\/call/);
    expect((failure as Error).message).toContain('expected array, received string');
    const empty = await agent.mcp.callTool('scripted', 'malformed', { kind: 'none' });
    expect(empty).toMatchObject({ content: [], isError: false });
    // the connection goes on after the refused result
    const echo = await agent.mcp.callTool('scripted', 'echo', { text: 'still here' });
    expect(echo.content).toEqual([{ type: 'text', text: 'still here' }]);
    expect(seen).toEqual({ probes: 0, checks: 3 });
  });
});
