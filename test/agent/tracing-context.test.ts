import { AsyncLocalStorage } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Context, ContextManager } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import { AgentTracing } from '../../src/agent/tracing/agent-tracing.js';
import { RunTrace } from '../../src/agent/tracing/run-trace.js';
import { ROOT } from '../package/built-package.js';
import { collect } from '../support/run-helpers.js';
import { byName, idOf, one, parentOf, recorder } from '../support/tracing.js';

// SPEC 12b: where spans come from (the global provider), where they hang (the caller's active
// context, a delegated run's traceContext), and that an untraced agent does nothing at all.

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
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

  it('starts no trace when no tracer is given and no provider is registered', async () => {
    const startRun = vi.spyOn(AgentTracing.prototype, 'startRun');
    const modelTurn = vi.spyOn(RunTrace.prototype, 'modelTurn');
    try {
      const agent = createAgent({
        model: scriptedModel([
          { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
          { text: '3' },
        ]),
        modelName: 'scripted-1',
        tools: [add],
        policy: { allow: ['add'] },
      });
      const { error } = await collect(agent.run({ input: 'sum' }));
      expect(error).toBeUndefined();
      expect(startRun).not.toHaveBeenCalled();
      expect(modelTurn).not.toHaveBeenCalled();
      await agent.close();
    } finally {
      startRun.mockRestore();
      modelTurn.mockRestore();
    }
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
        expect(loaded.some((url) => url.endsWith('/src/agent/tracing/agent-tracing.ts'))).toBe(
          true,
        );
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

describe('a delegated child run', () => {
  it("nests under the caller's execute_tool span through asTool(), with no context manager", async () => {
    const { exporter, tracer } = recorder();
    const root = createAgent({
      model: scriptedModel([]),
      modelName: 'scripted-root',
      policy: { allow: ['researcher'] },
      observability: { tracer, agentName: 'team' },
    });
    const researcher = root.child({
      model: scriptedModel([{ text: 'found it' }]),
      modelName: 'scripted-child',
    });
    const lead = root.child({
      model: scriptedModel([
        { toolCalls: [{ name: 'researcher', arguments: { prompt: 'look' } }] },
        { text: 'done' },
      ]),
      modelName: 'scripted-lead',
      tools: [researcher.asTool({ name: 'researcher', description: 'Researches.' })],
    });
    const { error } = await collect(lead.run({ input: 'go' }));
    expect(error).toBeUndefined();
    const spans = exporter.getFinishedSpans();
    // one tracer (the root's), but each run is named after its own agent: the lead has no
    // name, the delegated run takes its tool's; neither is the root's 'team'
    expect(byName(spans, 'invoke_agent team')).toEqual([]);
    const call = one(spans, 'execute_tool researcher');
    const leadRun = one(spans, 'invoke_agent');
    const subRun = one(spans, 'invoke_agent researcher');
    expect(parentOf(leadRun)).toBeUndefined();
    expect(parentOf(call)).toBe(idOf(leadRun));
    expect(parentOf(subRun)).toBe(idOf(call));
    expect(parentOf(one(spans, 'chat scripted-child'))).toBe(idOf(subRun));
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    await root.close();
  });
});
