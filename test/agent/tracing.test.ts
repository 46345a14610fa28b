import { execFileSync } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Context, ContextManager } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { AgentOptions, Tracer } from '../../src/index.js';
import { startModernOnlyHttpServer, stdioConfig } from '../support/mcp-fixtures.js';
import type { HttpFixture } from '../support/mcp-fixtures.js';
import { collect } from '../support/run-helpers.js';
import { ROOT } from '../package/built-package.js';

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

/** A tracer whose spans land in an in-memory exporter. */
function recorder() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer('test') };
}

const byName = (spans: readonly ReadableSpan[], name: string) =>
  spans.filter((s) => s.name === name);
const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

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
    const agent = toolAgent({ tracer, agentName: 'helper' });
    try {
      const { error, events } = await collect(agent.run({ input: 'Add and echo.' }));
      expect(error).toBeUndefined();
      const sessionId = events[0]!.sessionId;
      const spans = exporter.getFinishedSpans();

      const run = one(spans, 'invoke_agent helper');
      expect(parentOf(run)).toBeUndefined();
      expect(run.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'helper',
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
      // the connect happened before the first model turn, and ended before it started
      expect(hrMs(connect.endTime)).toBeLessThanOrEqual(hrMs(turns[0]!.startTime));

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
      // a tool call's span starts after the turn that asked for it ended
      expect(hrMs(hostCall.startTime)).toBeGreaterThanOrEqual(hrMs(turns[0]!.endTime));

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

describe('the global provider', () => {
  afterEach(() => trace.disable());

  it('is used when no tracer is given, and a run nests under a given traceContext', async () => {
    const { exporter, provider } = recorder();
    trace.setGlobalTracerProvider(provider);
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
        { text: '3' },
      ]),
      modelName: 'scripted-1',
      tools: [add],
      policy: { allow: ['add'] },
    });
    const outer = provider.getTracer('host').startSpan('host request');
    const { error } = await collect(
      agent.run({ input: 'sum', traceContext: trace.setSpan(ROOT_CONTEXT, outer) }),
    );
    outer.end();
    expect(error).toBeUndefined();
    const spans = exporter.getFinishedSpans();
    const run = one(spans, 'invoke_agent');
    expect(parentOf(run)).toBe(outer.spanContext().spanId);
    expect(run.instrumentationScope.name).toBe('muster-agent');
    expect(byName(spans, 'chat scripted-1')).toHaveLength(2);
    expect(parentOf(one(spans, 'execute_tool add'))).toBe(idOf(run));
    await agent.close();
  });

  it('is not used when tracing is false', async () => {
    const { exporter, provider } = recorder();
    trace.setGlobalTracerProvider(provider);
    const agent = createAgent({
      model: scriptedModel([{ text: 'hi' }]),
      modelName: 'scripted-1',
      observability: { tracing: false },
    });
    const { error } = await collect(agent.run({ input: 'hi' }));
    expect(error).toBeUndefined();
    expect(exporter.getFinishedSpans()).toEqual([]);
    await agent.close();
  });
});

describe('secrets never reach a span', () => {
  let http: HttpFixture | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });

  it('finds no header, env, bearer token or OAuth-like value in any name, attribute, event or status', async () => {
    const canaries = {
      header: 'canary-header-7f3a9c2e5b',
      env: 'canary-env-4d8e1b6f0a',
      bearer: 'canary-bearer-9c2d7e4a1f',
      oauth: 'canary-oauth-code-3b5f8a0d6e',
      failing: 'canary-failing-header-6a1e9d4c2b',
    };
    http = await startModernOnlyHttpServer();
    const { exporter, tracer } = recorder();
    const agent = createAgent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'mcp__remote__echo', arguments: { text: 'one' } },
            { name: 'mcp__local__echo', arguments: { text: 'two' } },
          ],
        },
        { text: 'done' },
      ]),
      modelName: 'scripted-1',
      mcp: { strictConfig: true },
      mcpServers: {
        remote: {
          type: 'http',
          url: `${http.url}?code=${canaries.oauth}`,
          headers: { 'X-Api-Key': canaries.header },
          auth: { type: 'bearer', token: canaries.bearer },
        },
        local: { ...stdioConfig('basic-server.mjs'), env: { API_SECRET: canaries.env } },
        gone: {
          type: 'http',
          url: 'http://127.0.0.1:9/mcp',
          headers: { 'X-Api-Key': canaries.failing },
          connectTimeoutMs: 5_000,
        },
      },
      policy: { allow: ['mcp__remote__echo', 'mcp__local__echo', 'mcp_connect:*'] },
      // content on as well: the secrets are in no argument or result either
      observability: { tracer, traceContent: true },
    });
    try {
      const { error } = await collect(agent.run({ input: 'echo twice' }));
      expect(error).toBeUndefined();
      const spans = exporter.getFinishedSpans();
      // the spans the canaries could have leaked into are there
      const connects = byName(spans, 'initialize');
      expect(connects.map((s) => s.attributes['muster.mcp.server']).sort()).toEqual([
        'gone',
        'local',
        'remote',
      ]);
      const gone = connects.find((s) => s.attributes['muster.mcp.server'] === 'gone')!;
      expect(gone.attributes['error.type']).toEqual(expect.any(String));
      expect(gone.attributes['network.transport']).toBe('tcp');
      const remoteCall = one(spans, 'execute_tool mcp__remote__echo');
      expect(remoteCall.attributes['error.type']).toBeUndefined();
      // content is recorded (traceContent), and still no secret
      expect(String(remoteCall.attributes['gen_ai.tool.call.result'])).toContain('one');
      const dump = JSON.stringify(
        spans.map((s) => ({
          name: s.name,
          attributes: s.attributes,
          events: s.events,
          status: s.status,
          links: s.links,
        })),
      );
      for (const [what, value] of Object.entries(canaries))
        expect(dump.includes(value), `${what} canary in a span`).toBe(false);
    } finally {
      await agent.close();
    }
  }, 30_000);
});

function hrMs(time: readonly [number, number]): number {
  return time[0] * 1e3 + time[1] / 1e6;
}

describe('an untraced agent', () => {
  it('never calls the tracer when tracing is false', async () => {
    const startSpan = vi.fn(() => {
      throw new Error('no span should be started');
    });
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
        { text: '3' },
      ]),
      modelName: 'scripted-1',
      tools: [add],
      policy: { allow: ['add'] },
      observability: { tracer: { startSpan }, tracing: false },
    });
    const { error } = await collect(agent.run({ input: 'sum' }));
    expect(error).toBeUndefined();
    expect(startSpan).not.toHaveBeenCalled();
    await agent.close();
  });

  it('never imports @opentelemetry/api, with tracing unset or off (fresh processes)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-tracing-'));
    try {
      for (const mode of ['unset', 'off']) {
        const log = join(dir, `${mode}.log`);
        const out = execFileSync(
          process.execPath,
          [
            '--import',
            'tsx',
            '--import',
            join(ROOT, 'test/fixtures/package/record-loads.mjs'),
            join(ROOT, 'test/fixtures/tracing/untraced-run.ts'),
            mode,
          ],
          {
            cwd: ROOT,
            env: { ...process.env, MUSTER_LOAD_LOG: log },
            encoding: 'utf8',
            timeout: 60_000,
          },
        );
        expect(out).toBe('done three');
        const loaded = readFileSync(log, 'utf8').split('\n');
        // the recorder saw the run's modules (the control), and none of the API
        expect(loaded.some((url) => url.endsWith('/src/agent/agent-tracing.ts'))).toBe(true);
        expect(loaded.filter((url) => url.includes('@opentelemetry'))).toEqual([]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** A context manager on AsyncLocalStorage, as an SDK registers one (only in this test file). */
class StorageContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}

describe('the active context', () => {
  afterEach(() => {
    context.disable();
    trace.disable();
  });

  it("nests a run under the caller's span, and a tool's work and a delegated run under its execute_tool span", async () => {
    context.setGlobalContextManager(new StorageContextManager());
    const { exporter, tracer } = recorder();
    const inner = createAgent({
      model: scriptedModel([{ text: 'inner answer' }]),
      modelName: 'scripted-2',
      observability: { tracer, agentName: 'inner' },
    });
    const seen: { active?: string; traced?: boolean } = {};
    const delegate = tool({
      name: 'delegate',
      description: 'Asks the inner agent.',
      input: z.object({ question: z.string() }),
      execute: async ({ question }, ctx) => {
        const active = trace.getActiveSpan() as unknown as { name?: string } | undefined;
        seen.active = active?.name;
        seen.traced = ctx.traceContext !== undefined;
        // the way a delegated sub-run is given its parent when no context manager is there
        const answer = await inner.send(question, { traceContext: ctx.traceContext });
        return answer.text;
      },
    });
    const outer = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'delegate', arguments: { question: 'why?' } }] },
        { text: 'done' },
      ]),
      modelName: 'scripted-1',
      tools: [delegate],
      policy: { allow: ['delegate'] },
      observability: { tracer, agentName: 'outer' },
    });
    const request = tracer.startSpan('host request');
    const { error } = await context.with(trace.setSpan(ROOT_CONTEXT, request as never), () =>
      collect(outer.run({ input: 'ask' })),
    );
    request.end();
    expect(error).toBeUndefined();
    expect(seen).toEqual({ active: 'execute_tool delegate', traced: true });
    const spans = exporter.getFinishedSpans();
    const outerRun = one(spans, 'invoke_agent outer');
    expect(parentOf(outerRun)).toBe(idOf(spans.find((s) => s.name === 'host request')!));
    const call = one(spans, 'execute_tool delegate');
    expect(parentOf(call)).toBe(idOf(outerRun));
    const innerRun = one(spans, 'invoke_agent inner');
    expect(parentOf(innerRun)).toBe(idOf(call));
    expect(parentOf(one(spans, 'chat scripted-2'))).toBe(idOf(innerRun));
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    await outer.close();
    await inner.close();
  });
});
