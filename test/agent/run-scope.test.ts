import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgent, MemorySessionStore, scriptedModel } from '../../src/index.js';
import type {
  AgentEvent,
  ScriptedTurn,
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
} from '../../src/index.js';
import type { CallScope, ExecutorRunContext } from '../../src/tools/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// One scope carries a run to its tools (issue 24): a run's scope and each call's scope are
// closed when they end, and nothing keeps them once the run is over.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SPY: ToolDefinition = {
  name: 'spy',
  description: 'Notes that it ran.',
  inputSchema: { type: 'object', properties: {} },
};

/** A host executor that keeps weak references to every scope it is handed. */
class ScopeSpy implements ToolExecutor {
  readonly runs: WeakRef<ExecutorRunContext>[] = [];
  readonly calls: WeakRef<ToolExecutionContext>[] = [];
  listTools(): readonly ToolDefinition[] {
    return [SPY];
  }
  prepareRun(ctx: ExecutorRunContext): Promise<void> {
    this.runs.push(new WeakRef(ctx));
    return Promise.resolve();
  }
  execute(_name: string, _input: Record<string, unknown>, ctx: ToolExecutionContext) {
    this.calls.push(new WeakRef(ctx));
    return Promise.resolve('seen');
  }
}

/** Collects garbage until every reference is cleared, or gives up after a few rounds. */
async function collectGarbage(refs: readonly WeakRef<object>[]): Promise<number> {
  for (let round = 0; round < 20; round++) {
    // a WeakRef target is kept alive until the end of the job that created or read it
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    if (refs.every((r) => r.deref() === undefined)) return 0;
  }
  return refs.filter((r) => r.deref() !== undefined).length;
}

const agents: { close(): Promise<void> }[] = [];
afterAll(() => Promise.all(agents.map((a) => a.close())));

describe('run and call scopes', () => {
  it('300 runs with MCP calls, a child and an asTool sub-run leave no scope behind', async () => {
    const RUNS = 300;
    const spy = new ScopeSpy();
    const root = createAgent({
      model: scriptedModel([]),
      mcp: { strictConfig: true },
      mcpServers: { kb: stdioConfig('basic-server.mjs', ['--name=kb']) },
      toolExecutor: spy,
      policy: { allow: ['mcp_connect:kb', 'mcp__kb__echo', 'spy', 'researcher'], default: 'deny' },
    });
    agents.push(root);
    const researcherTurns: ScriptedTurn[] = [];
    const leadTurns: ScriptedTurn[] = [];
    for (let i = 0; i < RUNS; i++) {
      researcherTurns.push(
        { toolCalls: [{ name: 'mcp__kb__echo', arguments: { text: `r${i}` } }] },
        { text: `found ${i}` },
      );
      leadTurns.push(
        {
          toolCalls: [
            { name: 'mcp__kb__echo', arguments: { text: `l${i}` } },
            { name: 'spy', arguments: {} },
            { name: 'researcher', arguments: { prompt: `question ${i}` } },
          ],
        },
        { text: `done ${i}` },
      );
    }
    const researcher = root.child({ model: scriptedModel(researcherTurns) });
    const lead = root.child({
      model: scriptedModel(leadTurns),
      tools: [researcher.asTool({ name: 'researcher', description: 'Researches a question.' })],
    });
    let completed = 0;
    let echoed = 0;
    for (let i = 0; i < RUNS; i++) {
      const { events, error } = await collect(lead.run({ input: `task ${i}` }));
      expect(error).toBeUndefined();
      completed += ofType(events, 'session.completed').length;
      echoed += ofType(events, 'tool.completed').filter(
        (e) => e.toolName === 'mcp__kb__echo' && !e.isError,
      ).length;
    }
    // every lead run and its sub-run completed, each with its MCP call
    expect(completed).toBe(2 * RUNS);
    expect(echoed).toBe(2 * RUNS);
    // the spy saw each run's scope (lead and sub-run) and each of its own calls
    expect(spy.runs).toHaveLength(2 * RUNS);
    expect(spy.calls).toHaveLength(RUNS);
    expect(await collectGarbage([...spy.runs, ...spy.calls])).toBe(0);
  });

  it('a scope kept past its call drops its events, refuses authorize, and writes nothing', async () => {
    let kept: ToolExecutionContext | undefined;
    let keptRun: ExecutorRunContext | undefined;
    const keeper: ToolExecutor = {
      listTools: () => [SPY],
      prepareRun: (ctx) => {
        keptRun = ctx;
        return Promise.resolve();
      },
      execute: (_name, _input, ctx) => {
        kept = ctx;
        return Promise.resolve('kept');
      },
    };
    const store = new MemorySessionStore();
    const events: AgentEvent[] = [];
    const agent = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'spy', arguments: {} }] }, { text: 'done' }]),
      toolExecutor: keeper,
      sessionStore: store,
      policy: { allow: ['spy', 'mcp_connect:*'] },
      observability: { onEvent: (e) => events.push(e) },
    });
    agents.push(agent);
    const { error } = await collect(agent.run({ input: 'go', sessionId: 'kept-scope' }));
    expect(error).toBeUndefined();
    const before = structuredClone(await store.get('kept-scope'));
    const seen = events.length;
    const spent = agent.usage.totalTokens;

    const call = kept as CallScope;
    expect(call.closed).toBe(true);
    call.reportProgress({ progress: 1, total: 2 });
    call.run.forward({
      type: 'tool.progress',
      timestamp: new Date().toISOString(),
      sessionId: 'kept-scope',
      runId: call.runId,
    });
    call.run.addUsage({ inputTokens: 5, outputTokens: 5, totalTokens: 10 });
    await expect(
      call.authorize({ kind: 'sampling', capability: 'mcp_sampling:kb', sessionId: '', runId: '' }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    keptRun!.emit({ type: 'mcp.server.status', timestamp: '', sessionId: '', runId: '' });
    await expect(
      keptRun!.authorize({
        kind: 'connection',
        capability: 'mcp_connect:kb',
        sessionId: '',
        runId: '',
      }),
    ).rejects.toMatchObject({ code: 'ABORTED' });

    expect(events).toHaveLength(seen);
    expect(await store.get('kept-scope')).toEqual(before);
    expect(agent.usage.totalTokens).toBe(spent);
  });

  it('a scope kept past its call is closed while its run goes on', async () => {
    // turn 1 calls `keep`, which keeps its context; turn 2 calls `use`, which uses the kept
    // context while the run (and its own call) are still in progress
    let kept: ToolExecutionContext | undefined;
    let refusal: unknown;
    const keepAndUse: ToolExecutor = {
      listTools: () => [
        { ...SPY, name: 'keep' },
        { ...SPY, name: 'use' },
      ],
      execute: async (name, _input, ctx) => {
        if (name === 'keep') {
          kept = ctx;
          return 'kept';
        }
        kept!.reportProgress({ progress: 1 });
        kept!.run!.forward({
          type: 'tool.progress',
          timestamp: new Date().toISOString(),
          sessionId: ctx.sessionId,
          runId: ctx.runId,
        });
        refusal = await (kept as CallScope)
          .authorize({
            kind: 'sampling',
            capability: 'mcp_sampling:kb',
            sessionId: ctx.sessionId,
            runId: ctx.runId,
          })
          .catch((err: unknown) => err);
        // the live call's own context still reports
        ctx.reportProgress({ progress: 2 });
        return 'used';
      },
    };
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'keep', arguments: {} }] },
        { toolCalls: [{ name: 'use', arguments: {} }] },
        { text: 'done' },
      ]),
      toolExecutor: keepAndUse,
      policy: { allow: ['keep', 'use'] },
    });
    agents.push(agent);
    const { events, error } = await collect(agent.run({ input: 'go' }));
    expect(error).toBeUndefined();
    const [keepCall, useCall] = ofType(events, 'tool.called').map((e) => e.callId);
    expect((kept as CallScope).closed).toBe(true);
    expect(refusal).toMatchObject({ code: 'ABORTED' });
    // nothing of the kept scope reached the stream; the live call's progress did
    expect(ofType(events, 'tool.progress').map((e) => e.callId)).toEqual([useCall]);
    expect(events.filter((e) => e.type === 'tool.progress' && e.callId === keepCall)).toEqual([]);
    expect(events.filter((e) => e.type === 'tool.progress' && !('callId' in e))).toEqual([]);
  });
});
