/**
 * A `tools/call` result is checked by the client's own codec, once per call, with the schema
 * built once (src/mcp/client/call-result-schema.ts), not rebuilt per call by a failing parse of
 * `undefined` (what `request()` does for `Client.callTool()` by itself). Real servers: the basic
 * stdio fixture (an SDK server, legacy era in `auto`), the hand-written scripted one, and the
 * modern-only Streamable HTTP fixture on loopback.
 */
import { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, MusterError, scriptedModel } from '../../src/index.js';
import type { Agent } from '../../src/index.js';
import { startModernOnlyHttpServer } from '../fixtures/mcp/http-servers.mjs';
import type { HttpFixture } from '../fixtures/mcp/http-servers.mjs';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';
import { scriptedServer } from './support/stdio-scripted.js';
import type { ScriptedServer } from './support/stdio-scripted.js';

interface Codec {
  validateResult(method: string, raw: unknown): unknown;
}

/** The client's codec of an era (one object per era, shared by every client). */
function codecOf(version?: string): Codec {
  const client = new Client({ name: 't', version: '0' }) as unknown as {
    _negotiatedProtocolVersion?: string;
    _wireCodec(): Codec;
  };
  // a client that has negotiated nothing yet resolves to the legacy era's codec
  if (version) client._negotiatedProtocolVersion = version;
  return client._wireCodec();
}
const CODECS = { legacy: codecOf(), modern: codecOf('2026-07-28') };
const ORIGINAL = Object.fromEntries(
  Object.entries(CODECS).map(([era, codec]) => [
    era,
    Object.getOwnPropertyDescriptor(codec, 'validateResult')!,
  ]),
);

/** Counts what the era's codec is asked about `tools/call` results while it is watched. */
function watchCodec(era: keyof typeof CODECS): { probes: number; checks: number } {
  const seen = { probes: 0, checks: 0 };
  const codec = CODECS[era];
  const validate = ORIGINAL[era]!.value as Codec['validateResult'];
  codec.validateResult = (method, raw) => {
    if (method === 'tools/call') {
      if (raw === undefined) seen.probes++;
      else seen.checks++;
    }
    return validate.call(codec, method, raw);
  };
  return seen;
}
afterEach(() => {
  for (const [era, codec] of Object.entries(CODECS))
    Object.defineProperty(codec, 'validateResult', ORIGINAL[era]!);
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
    const seen = watchCodec('legacy');
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
    const seen = watchCodec('legacy');
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

describe('tools/call results on a modern Streamable HTTP connection', () => {
  let server: HttpFixture;
  let agent: Agent;
  beforeAll(async () => {
    server = await startModernOnlyHttpServer();
    agent = createAgent({
      model: scriptedModel([]),
      mcp: { strictConfig: true },
      mcpServers: { remote: { type: 'http', url: server.url } },
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
    });
    await agent.initialize();
  });
  afterAll(async () => {
    await agent?.close();
    await server?.close();
  });

  it('are checked once each through callTool() (header mirroring kept), never probed', async () => {
    expect(agent.mcp.list().map((s) => [s.name, s.status])).toEqual([['remote', 'connected']]);
    const seen = watchCodec('modern');
    for (let i = 0; i < 3; i++) {
      const result = await agent.mcp.callTool('remote', 'echo', { text: `call ${i}` });
      expect(result.content).toEqual([
        { type: 'text', text: expect.stringContaining(`call ${i}`) },
      ]);
    }
    expect(seen).toEqual({ probes: 0, checks: 3 });
  });
});
