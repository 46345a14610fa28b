import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { AgentOptions } from '../../src/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect } from '../support/run-helpers.js';
import { byName, hrMs, idOf, one, parentOf, recorder } from '../support/tracing.js';

// SPEC 12b: spans exported to the SDK's in-memory exporter, from a real stdio server, a real
// loopback HTTP server, the scripted model and host tools.

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const boom = tool({
  name: 'boom',
  description: 'Always fails.',
  input: z.object({}),
  execute: () => {
    throw new Error('it broke');
  },
});

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
});

/** The agent of the structure tests: host tools, one stdio server, three turns. */
function toolAgent(observability: AgentOptions['observability']) {
  return createAgent({
    model: scriptedModel([
      {
        text: 'Working.',
        toolCalls: [
          { name: 'add', arguments: { a: 2, b: 3 }, id: 'call_add' },
          { name: 'mcp__basic__echo', arguments: { text: 'hello' } },
          { name: 'boom', arguments: {} },
          { name: 'mcp__basic__add', arguments: { a: 1, b: 1 } },
        ],
        usage: usage(11, 7),
      },
      { text: 'All done.', usage: usage(23, 3) },
    ]),
    modelName: 'scripted-1',
    tools: [add, boom],
    mcpServers: { basic: stdioConfig('basic-server.mjs') },
    mcp: { strictConfig: true },
    policy: {
      allow: ['add', 'boom', 'mcp__basic__echo', 'mcp_connect:*'],
      deny: ['mcp__basic__add'],
    },
    limits: { maxToolCallsPerTurn: 8 },
    observability,
  });
}

describe('OpenTelemetry spans', () => {
  it('names, nests and attributes the run, its model turns, tool calls and MCP connect', async () => {
    const { exporter, tracer } = recorder();
    const agent = toolAgent({ tracer, agentName: 'assistant' });
    try {
      const { error, events } = await collect(agent.run({ input: 'Add and echo.' }));
      expect(error).toBeUndefined();
      const sessionId = events[0]!.sessionId;
      const spans = exporter.getFinishedSpans();

      const run = one(spans, 'invoke_agent assistant');
      expect(parentOf(run)).toBeUndefined();
      expect(run.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'assistant',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.request.model': 'scripted-1',
        'gen_ai.conversation.id': sessionId,
        'gen_ai.usage.input_tokens': 34,
        'gen_ai.usage.output_tokens': 10,
      });

      const turns = byName(spans, 'chat scripted-1');
      expect(turns).toHaveLength(2);
      for (const t of turns) expect(parentOf(t)).toBe(idOf(run));
      expect(turns.map((t) => t.attributes)).toMatchObject([
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'scripted-1',
          'gen_ai.usage.input_tokens': 11,
          'gen_ai.usage.output_tokens': 7,
          'gen_ai.response.finish_reasons': ['tool_calls'],
        },
        {
          'gen_ai.usage.input_tokens': 23,
          'gen_ai.usage.output_tokens': 3,
          'gen_ai.response.finish_reasons': ['stop'],
        },
      ]);
      expect(turns.every((t) => t.kind === 2)).toBe(true); // CLIENT

      const connect = one(spans, 'initialize');
      expect(parentOf(connect)).toBe(idOf(run));
      expect(connect.attributes).toMatchObject({
        'mcp.method.name': 'initialize',
        'muster.mcp.server': 'basic',
        'network.transport': 'pipe',
      });
      expect(connect.attributes['mcp.protocol.version']).toEqual(expect.any(String));
      // the connect happened before the first model turn, and ended before it started (a
      // span's start is whole milliseconds, its end from the performance clock: see below)
      expect(Math.floor(hrMs(connect.endTime))).toBeLessThanOrEqual(hrMs(turns[0]!.startTime));

      const hostCall = one(spans, 'execute_tool add');
      const mcpCall = one(spans, 'execute_tool mcp__basic__echo');
      const failing = one(spans, 'execute_tool boom');
      const denied = one(spans, 'execute_tool mcp__basic__add');
      for (const s of [hostCall, mcpCall, failing, denied]) expect(parentOf(s)).toBe(idOf(run));
      expect(hostCall.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'add',
        'gen_ai.tool.call.id': 'call_add',
        'gen_ai.tool.type': 'function',
      });
      expect(hostCall.attributes['error.type']).toBeUndefined();
      expect(hostCall.status.code).toBe(0);
      expect(mcpCall.attributes).toMatchObject({
        'gen_ai.tool.name': 'mcp__basic__echo',
        'gen_ai.tool.type': 'extension',
        'mcp.method.name': 'tools/call',
        'muster.mcp.server': 'basic',
        'muster.mcp.tool.original_name': 'echo',
        'network.transport': 'pipe',
        'mcp.protocol.version': connect.attributes['mcp.protocol.version'],
      });
      expect(failing.attributes['error.type']).toBe('TOOL_EXECUTION_FAILED');
      expect(failing.status).toEqual({ code: 2, message: 'TOOL_EXECUTION_FAILED' });
      expect(denied.attributes['error.type']).toBe('TOOL_DENIED');
      // a tool call's span starts after the turn that asked for it ended (the SDK takes a
      // span's start from Date.now(), whole milliseconds, and its end from the performance
      // clock, so one millisecond of rounding is allowed)
      expect(hrMs(hostCall.startTime)).toBeGreaterThanOrEqual(Math.floor(hrMs(turns[0]!.endTime)));

      // nothing of the content without the opt-in
      for (const s of spans)
        for (const key of Object.keys(s.attributes))
          expect(key).not.toMatch(/arguments|result|messages|instructions/);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('records arguments, results and messages only when traceContent is on', async () => {
    const { exporter, tracer } = recorder();
    const agent = toolAgent({ tracer, traceContent: true });
    try {
      const { error } = await collect(agent.run({ input: 'Add and echo.' }));
      expect(error).toBeUndefined();
      const spans = exporter.getFinishedSpans();
      const run = one(spans, 'invoke_agent');
      expect(JSON.parse(String(run.attributes['gen_ai.input.messages']))).toEqual([
        { role: 'user', parts: [{ type: 'text', content: 'Add and echo.' }] },
      ]);
      expect(String(run.attributes['gen_ai.output.messages'])).toContain('All done.');
      const hostCall = one(spans, 'execute_tool add');
      expect(JSON.parse(String(hostCall.attributes['gen_ai.tool.call.arguments']))).toEqual({
        a: 2,
        b: 3,
      });
      expect(hostCall.attributes['gen_ai.tool.call.result']).toBe('5');
      const mcpCall = one(spans, 'execute_tool mcp__basic__echo');
      expect(String(mcpCall.attributes['gen_ai.tool.call.result'])).toContain('hello');
      const first = byName(spans, 'chat scripted-1')[0]!;
      const output = JSON.parse(String(first.attributes['gen_ai.output.messages'])) as {
        parts: { type: string; name?: string }[];
      }[];
      expect(output[0]!.parts.map((p) => p.name ?? p.type)).toEqual([
        'text',
        'add',
        'mcp__basic__echo',
        'boom',
        'mcp__basic__add',
      ]);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('traces a connect outside any run (initialize) as a root span', async () => {
    const { exporter, tracer } = recorder();
    const agent = createAgent({
      mcpServers: { basic: stdioConfig('basic-server.mjs') },
      mcp: { strictConfig: true },
      policy: { allow: ['mcp_connect:*'] },
      observability: { tracer },
    });
    try {
      await agent.initialize();
      const connect = one(exporter.getFinishedSpans(), 'initialize');
      expect(parentOf(connect)).toBeUndefined();
      expect(connect.attributes).toMatchObject({
        'mcp.method.name': 'initialize',
        'muster.mcp.server': 'basic',
      });
      expect(connect.status.code).toBe(0);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('never lets a failing tracer change a run: its throws go to onError', async () => {
    const errors: unknown[] = [];
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
        { text: 'three' },
      ]),
      modelName: 'scripted-1',
      tools: [add],
      policy: { allow: ['add'] },
      observability: {
        tracer: {
          startSpan: () => {
            throw new Error('tracer down');
          },
        },
        onError: (err) => errors.push(err),
      },
    });
    const result = await agent.send('sum');
    expect(result.text).toBe('three');
    expect(errors.length).toBeGreaterThanOrEqual(4); // run, two turns, one call
    expect(errors.every((e) => (e as Error).message === 'tracer down')).toBe(true);
    await agent.close();
  });

  it('refuses tracing options of the wrong shape with INVALID_CONFIGURATION', async () => {
    const bad: unknown[] = [
      { tracer: {} },
      { tracer: { startSpan: 'no' } },
      { tracing: 'off' },
      { traceContent: 1 },
      { agentName: '' },
    ];
    for (const observability of bad)
      expect(
        () => createAgent({ observability } as AgentOptions),
        JSON.stringify(observability),
      ).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    const agent = createAgent({ model: scriptedModel([{ text: 'x' }]), modelName: 'm' });
    const { error } = await collect(agent.run({ input: 'x', traceContext: {} as never }));
    expect(error?.code).toBe('INVALID_CONFIGURATION');
    expect(error?.message).toContain('traceContext');
    await agent.close();
  });

  it('names the principal a run acts for on its run span, and none for the local user', async () => {
    const { exporter, tracer } = recorder();
    const agent = createAgent({
      model: scriptedModel([{ text: 'one' }, { text: 'two' }]),
      modelName: 'scripted-1',
      observability: { tracer },
    });
    await collect(agent.run({ input: 'hi', principal: 'alice@example.com' }));
    await collect(agent.run({ input: 'hi' }));
    const runs = exporter.getFinishedSpans().filter((s) => s.name === 'invoke_agent');
    expect(runs.map((s) => s.attributes['muster.principal'])).toEqual([
      'alice@example.com',
      undefined,
    ]);
    await agent.close();
  });

  it('marks a failed run and its model turn with the error code', async () => {
    const { exporter, tracer } = recorder();
    const agent = createAgent({
      model: scriptedModel([]),
      modelName: 'scripted-1',
      observability: { tracer },
    });
    const { error } = await collect(agent.run({ input: 'hi' }));
    expect(error?.code).toBe('MODEL_RESPONSE_INVALID');
    const spans = exporter.getFinishedSpans();
    const run = one(spans, 'invoke_agent');
    expect(run.attributes['error.type']).toBe('MODEL_RESPONSE_INVALID');
    expect(run.status.code).toBe(2);
    const turn = one(spans, 'chat scripted-1');
    expect(parentOf(turn)).toBe(idOf(run));
    expect(turn.attributes['error.type']).toBe('MODEL_RESPONSE_INVALID');
    await agent.close();
  });
});
