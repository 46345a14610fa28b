import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, scriptedModel, tool } from '../../src/index.js';
import type {
  Agent,
  ModelClient,
  ModelRequest,
  ScriptedTurn,
  ScriptedTurnSpec,
  Usage,
} from '../../src/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// Budgets (SPEC 15.4) over one real stdio server (budget-server.mjs) that every test shares:
// one root agent connects to it once, and each test runs children of it with scripted models
// whose turns spend fixed token counts. Prices are Claude-like ($3 in, $0.30 cached, $15 out
// per million tokens), so costs are fractions that floating-point sums would not add exactly.

const PRICE = { inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15 };
const pricing = { root: PRICE, lead: PRICE, researcher: PRICE, analyst: PRICE };

/** Usage of `input` tokens (`cached` of them from the cache) and `output` tokens. */
const u = (input: number, output: number, cached?: number): Usage => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
  ...(cached !== undefined ? { cachedInputTokens: cached } : {}),
});

/** The cost of `usage` at PRICE in whole micro-dollars (the prices make it whole). */
const micro = (usage: Usage): number => {
  const cached = usage.cachedInputTokens ?? 0;
  return (usage.inputTokens - cached) * 3 + (cached * 3) / 10 + usage.outputTokens * 15;
};

const ping = tool({
  name: 'ping',
  description: 'Answers pong.',
  input: z.object({}),
  annotations: { readOnlyHint: true },
  execute: () => 'pong',
});
const pingTurn = (usage: Usage): ScriptedTurnSpec => ({
  toolCalls: [{ name: 'ping', arguments: {} }],
  usage,
});

/**
 * A model whose first turn streams "partial" and then never ends, ignoring its signal (a hung
 * stream); its later turns are `then`'s.
 */
function hungFirstTurn(then: ScriptedTurnSpec[]): ModelClient & { requests: ModelRequest[] } {
  const rest = scriptedModel(then);
  const requests: ModelRequest[] = [];
  return {
    specificationVersion: 'muster-model-v1',
    provider: 'hung',
    requests,
    async *generate(request, options) {
      requests.push(request);
      if (requests.length > 1) return yield* rest.generate(request, options);
      yield { type: 'text-delta', text: 'partial' };
      await new Promise<never>(() => undefined);
    },
  };
}

function lastToolResult(request: ModelRequest): string {
  const last = request.messages.filter((m) => m.role === 'tool').at(-1);
  return last?.role === 'tool' ? last.content : '';
}

describe('budgets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'muster-budget-'));
  const log = join(dir, 'server.log');
  /** The root model's turns: it answers the sampling requests of the server. */
  const rootTurns: ScriptedTurnSpec[] = [];
  let root: Agent;

  const serverLog = (): string[] => {
    try {
      return readFileSync(log, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };

  beforeAll(async () => {
    root = createAgent({
      model: scriptedModel(
        Array.from({ length: 20 }, (): ScriptedTurn => () => rootTurns.shift()!),
      ),
      modelName: 'root',
      pricing,
      mcp: {
        strictConfig: true,
        // the server asks for sampling during a call: the legacy era's requests
        protocol: { mode: 'legacy' },
        handlers: { sampling: 'agent' },
      },
      mcpServers: { b: stdioConfig('budget-server.mjs', [`--log=${log}`]) },
      policy: {
        allow: ['mcp_connect:b', 'mcp__b', 'mcp_sampling:b', 'ping', 'researcher', 'analyst'],
      },
    });
    await root.initialize();
  });

  afterAll(async () => {
    await root?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(() => {
    vi.restoreAllMocks();
    rootTurns.length = 0;
  });

  it('a parent with a $0.01 budget stops when its child and an asTool sub-run spend it; usage and cost add up exactly', async () => {
    const spends = {
      lead1: u(400, 40),
      child1: u(700, 10),
      child2: u(900, 30, 600),
      lead2: u(600, 50),
      analyst1: u(500, 29),
    };
    // the researcher is a child of the root agent; the analyst an agent of its own
    const researcherModel = scriptedModel([
      { toolCalls: [{ name: 'mcp__b__echo', arguments: { text: 'q' } }], usage: spends.child1 },
      (req) => ({ text: `found (${lastToolResult(req)})`, usage: spends.child2 }),
    ]);
    const researcher = root.child({ model: researcherModel, modelName: 'researcher' });
    const store = new MemorySessionStore();
    const analystModel = scriptedModel([
      { toolCalls: [{ name: 'analyst_echo', arguments: {} }], usage: spends.analyst1 },
      { text: 'never asked' },
    ]);
    const analystEcho = tool({
      name: 'analyst_echo',
      description: 'Echoes.',
      input: z.object({}),
      execute: () => 'echoed',
    });
    const analyst = createAgent({
      model: analystModel,
      modelName: 'analyst',
      pricing,
      tools: [analystEcho],
      policy: { allow: ['analyst_echo'] },
      sessionStore: store,
    });
    const leadModel = scriptedModel([
      { toolCalls: [{ name: 'researcher', arguments: { prompt: 'look' } }], usage: spends.lead1 },
      { toolCalls: [{ name: 'analyst', arguments: { prompt: 'analyse' } }], usage: spends.lead2 },
      { text: 'never asked' },
    ]);
    const lead = root.child({
      model: leadModel,
      modelName: 'lead',
      tools: [
        researcher.asTool({ name: 'researcher', description: 'Researches.' }),
        analyst.asTool({ name: 'analyst', description: 'Analyses.' }),
      ],
      policy: { allow: ['researcher', 'analyst'] },
    });
    try {
      const { events, error } = await collect(
        lead.run({ input: 'go', sessionId: 'parent-001', limits: { maxCostUsd: 0.01 } }),
      );
      const total = Object.values(spends).reduce((sum, s) => sum + micro(s), 0);
      const tokens = Object.values(spends).reduce((sum, s) => sum + s.totalTokens, 0);
      expect(total).toBe(10_065); // $0.010065: the analyst's first turn crossed $0.01
      // the run stopped at the limit: the analyst's turn completed, its tool never ran, and
      // neither model was asked again
      expect(error).toMatchObject({
        code: 'BUDGET_EXHAUSTED',
        details: { limit: 'maxCostUsd', max: 0.01, spent: total / 1e6 },
      });
      expect(leadModel.requests).toHaveLength(2);
      expect(analystModel.requests).toHaveLength(1);
      expect(ofType(events, 'tool.called').map((e) => e.toolName)).not.toContain('analyst_echo');
      const analystCall = ofType(events, 'tool.completed').find((e) => e.toolName === 'analyst');
      expect(analystCall).toMatchObject({ isError: true, errorCode: 'TOOL_OUTCOME_UNKNOWN' });
      // warned once at 80 % (the lead's second turn: $0.00813), then spent
      const leadRun = ofType(events, 'session.started')[0]!.runId;
      const mine = events.filter((e) => e.runId === leadRun);
      expect(ofType(mine, 'budget.warning')).toEqual([
        expect.objectContaining({ limit: 'maxCostUsd', max: 0.01, spent: 0.00813 }),
      ]);
      expect(ofType(mine, 'budget.exhausted')).toEqual([
        expect.objectContaining({
          limit: 'maxCostUsd',
          spent: total / 1e6,
          onBudgetExhausted: 'fail',
        }),
      ]);
      // each turn's usage carries its cost (the analyst's run was cancelled with its call:
      // its events stop reaching the lead's stream, its session has them)
      expect(ofType(events, 'model.completed').map((e) => e.usage?.costUsd)).toEqual(
        [spends.lead1, spends.child1, spends.child2, spends.lead2].map((s) => micro(s) / 1e6),
      );
      // the three add up, in the parent's budget and in the sessions, without drift
      const parent = (await root.sessions.get('parent-001'))!;
      expect(parent.budget).toMatchObject({
        limits: { maxCostUsd: 0.01 },
        spent: { tokens, costUsd: total / 1e6, toolCalls: 3 },
        warned: ['maxCostUsd'],
        exhausted: 'maxCostUsd',
      });
      expect(parent.usage.costUsd).toBe(total / 1e6);
      expect(parent.usage.totalTokens).toBe(tokens);
      const childSession = ofType(events, 'session.started')[1]!.sessionId;
      const analystSession = ofType(events, 'session.started')[2]!.sessionId;
      const child = (await root.sessions.get(childSession))!;
      const sub = (await store.get(analystSession))!;
      expect(child.usage.costUsd).toBe((micro(spends.child1) + micro(spends.child2)) / 1e6);
      expect(sub.usage.costUsd).toBe(micro(spends.analyst1) / 1e6);
      // a delegated run without limits of its own stores no budget: its parent's counts it
      expect(child.budget).toBeUndefined();
      // a tally of floating-point dollars would have drifted here; whole picodollars do not
      const floats = Object.values(spends).reduce((sum, s) => sum + micro(s) / 1e6, 0);
      expect(floats).not.toBe(total / 1e6);
    } finally {
      await analyst.close();
    }
  }, 30_000);

  it('server sampling answered by the agent model counts against the calling run, and can spend its budget', async () => {
    rootTurns.push({ text: 'a sampled answer', usage: u(600, 200) });
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__b__sample', arguments: { text: 'hi' } }], usage: u(250, 50) },
      { text: 'never asked' },
    ]);
    const lead = root.child({ model, modelName: 'lead' });
    const { events, error } = await collect(
      lead.run({ input: 'sample', sessionId: 'sampling-001', limits: { maxTotalTokens: 1000 } }),
    );
    // 300 tokens of the run's turn + 800 of the sampling: over 1000 during the call
    expect(error).toMatchObject({
      code: 'BUDGET_EXHAUSTED',
      details: { limit: 'maxTotalTokens', max: 1000, spent: 1100 },
    });
    expect(ofType(events, 'sampling.requested')).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    // the call in flight was cancelled: its outcome is unknown
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      toolName: 'mcp__b__sample',
      errorCode: 'TOOL_OUTCOME_UNKNOWN',
    });
    const stored = (await root.sessions.get('sampling-001'))!;
    expect(stored.budget?.spent).toMatchObject({
      tokens: 1100,
      costUsd: (micro(u(250, 50)) + micro(u(600, 200))) / 1e6,
      toolCalls: 1,
    });
    expect(stored.usage).toMatchObject({ totalTokens: 1100 });
  }, 30_000);

  it('a server that ignores the cancel of a call whose run spent its budget has its later sampling refused, not answered as background work', async () => {
    rootTurns.push(
      { text: 'a sampled answer', usage: u(600, 200) },
      { text: 'an answer nobody pays for', usage: u(600, 200) },
    );
    const model = scriptedModel([
      {
        toolCalls: [{ name: 'mcp__b__sample_twice', arguments: { id: 'twice-1', text: 'hi' } }],
        usage: u(250, 50),
      },
      { text: 'never asked' },
    ]);
    const lead = root.child({ model, modelName: 'lead' });
    const { error } = await collect(
      lead.run({ input: 'sample', sessionId: 'resample-001', limits: { maxTotalTokens: 1000 } }),
    );
    expect(error).toMatchObject({
      code: 'BUDGET_EXHAUSTED',
      details: { limit: 'maxTotalTokens', spent: 1100 },
    });
    await expect
      .poll(() => serverLog().filter((l) => l.startsWith('resample twice-1')), { timeout: 10_000 })
      .toEqual([expect.stringMatching(/^resample twice-1 refused: .*was cancelled/)]);
    // the agent's model answered the first request only
    expect(rootTurns).toHaveLength(1);
  }, 30_000);

  it("warns once per limit at 80 %; 'finish' takes exactly one last turn, its request without tools", async () => {
    const model = scriptedModel([
      pingTurn(u(200, 100)),
      pingTurn(u(200, 100)),
      pingTurn(u(200, 100)), // 900 tokens: over 80 % of 1000
      pingTurn(u(200, 100)), // 1200: spent; its ping never runs
      { text: 'the answer from what I have', usage: u(300, 20) },
      { text: 'never asked' },
    ]);
    const lead = root.child({ model, modelName: 'lead', tools: [ping] });
    const { events, error } = await collect(
      lead.run({
        input: 'work',
        sessionId: 'finish-001',
        limits: { maxTotalTokens: 1000, maxToolCalls: 10, onBudgetExhausted: 'finish' },
      }),
    );
    expect(error).toBeUndefined();
    expect(ofType(events, 'session.completed')[0]).toMatchObject({
      content: 'the answer from what I have',
    });
    expect(ofType(events, 'budget.warning')).toEqual([
      expect.objectContaining({ limit: 'maxTotalTokens', max: 1000, spent: 900 }),
    ]);
    expect(ofType(events, 'budget.exhausted')).toEqual([
      expect.objectContaining({
        limit: 'maxTotalTokens',
        spent: 1200,
        onBudgetExhausted: 'finish',
      }),
    ]);
    // exactly one last turn, and its request offers no tool
    expect(model.requests).toHaveLength(5);
    expect(model.requests.slice(0, 4).every((r) => r.tools.length > 0)).toBe(true);
    expect(model.requests[4]!.tools).toEqual([]);
    expect(JSON.stringify(model.requests[4]!.messages.at(-1))).toContain('budget');
    // three pings ran; the fourth turn's was refused, not run
    const done = ofType(events, 'tool.completed');
    expect(done.map((e) => e.executed)).toEqual([true, true, true, false]);
    expect(done[3]!.content).toContain('BUDGET_EXHAUSTED');
    expect((await root.sessions.get('finish-001'))!.budget).toMatchObject({
      spent: { tokens: 1520, toolCalls: 3 },
      warned: ['maxTotalTokens'],
      exhausted: 'maxTotalTokens',
    });
  });

  it('maxTotalTokens: the turn that crosses completes, none of its tools runs, no model request follows', async () => {
    const model = scriptedModel([
      pingTurn(u(300, 100)),
      pingTurn(u(300, 100)),
      pingTurn(u(300, 100)),
      { text: 'never asked' },
    ]);
    const lead = root.child({ model, modelName: 'lead', tools: [ping] });
    const { events, error } = await collect(
      lead.run({ input: 'work', sessionId: 'tokens-001', limits: { maxTotalTokens: 1000 } }),
    );
    expect(error).toMatchObject({
      code: 'BUDGET_EXHAUSTED',
      details: { limit: 'maxTotalTokens', max: 1000, spent: 1200 },
    });
    expect(events.at(-1)).toMatchObject({ type: 'session.failed', error });
    expect(model.requests).toHaveLength(3);
    expect(ofType(events, 'model.completed')).toHaveLength(3);
    expect(ofType(events, 'tool.completed').map((e) => e.executed)).toEqual([true, true, false]);
    expect(ofType(events, 'budget.warning').map((e) => e.limit)).toEqual(['maxTotalTokens']);
    const stored = (await root.sessions.get('tokens-001'))!;
    expect(stored).toMatchObject({ status: 'failed', error: { code: 'BUDGET_EXHAUSTED' } });
    // the crossing turn is in the transcript, and each of its calls has a result
    expect(stored.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
  });

  it('maxToolCalls: calls past the limit are refused, across turns and within one', async () => {
    const model = scriptedModel([
      pingTurn(u(10, 10)),
      {
        toolCalls: [
          { name: 'ping', arguments: {} },
          { name: 'ping', arguments: {} },
        ],
        usage: u(10, 10),
      },
      { text: 'never asked' },
    ]);
    const lead = root.child({ model, modelName: 'lead', tools: [ping] });
    const { events, error } = await collect(
      lead.run({ input: 'work', sessionId: 'calls-001', limits: { maxToolCalls: 2 } }),
    );
    expect(error).toMatchObject({
      code: 'BUDGET_EXHAUSTED',
      details: { limit: 'maxToolCalls', max: 2, spent: 2 },
    });
    expect(model.requests).toHaveLength(2);
    // the two calls of the second turn run together: the first is within the limit and runs
    const executed = Object.fromEntries(
      ofType(events, 'tool.completed').map((e) => [e.callId, e.executed]),
    );
    expect(executed).toEqual({ call_1_1: true, call_2_1: true, call_2_2: false });
    expect(ofType(events, 'budget.warning')).toEqual([
      expect.objectContaining({ limit: 'maxToolCalls', max: 2, spent: 2 }),
    ]);
    expect((await root.sessions.get('calls-001'))!.budget?.spent.toolCalls).toBe(2);
  });

  it("each run of a session has a budget of its own: the previous run's is neither counted nor kept", async () => {
    const model = scriptedModel([
      { text: 'one', usage: u(10, 10) },
      { text: 'two', usage: u(10, 10) },
      { text: 'three', usage: u(10, 10) },
    ]);
    const lead = root.child({ model, modelName: 'lead' });
    const sessionId = 'runs-001';
    await lead.send('first', { sessionId, limits: { maxTotalTokens: 1000 } });
    // 20 more tokens: over 30 only if the first run's 20 were counted again
    const second = await lead.send('second', { sessionId, limits: { maxTotalTokens: 30 } });
    expect(second.text).toBe('two');
    expect((await root.sessions.get(sessionId))!.budget).toMatchObject({
      limits: { maxTotalTokens: 30 },
      spent: { tokens: 20 },
    });
    await lead.send('third', { sessionId });
    expect((await root.sessions.get(sessionId))!.budget).toBeUndefined();
  });

  it('maxDurationMs: a slow MCP call in flight is cancelled and the server sees the cancel', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__b__hold', arguments: { id: 'slow-1' } }], usage: u(10, 10) },
      { text: 'never asked' },
    ]);
    const lead = root.child({ model, modelName: 'lead' });
    const { events, error } = await collect(
      lead.run({ input: 'wait', sessionId: 'duration-001', limits: { maxDurationMs: 500 } }),
    );
    expect(error).toMatchObject({
      code: 'BUDGET_EXHAUSTED',
      details: { limit: 'maxDurationMs', max: 500 },
    });
    expect(model.requests).toHaveLength(1);
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      toolName: 'mcp__b__hold',
      executed: true,
      errorCode: 'TOOL_OUTCOME_UNKNOWN',
    });
    expect(ofType(events, 'budget.warning').map((e) => e.limit)).toEqual(['maxDurationMs']);
    await expect
      .poll(serverLog)
      .toEqual(expect.arrayContaining(['hold slow-1', 'cancelled slow-1']));
  }, 30_000);

  it("maxDurationMs stops a model request in flight: 'fail' ends the run with what it streamed kept", async () => {
    const model = hungFirstTurn([{ text: 'never asked' }]);
    const lead = root.child({ model, modelName: 'lead', tools: [ping] });
    const { events, error } = await collect(
      lead.run({ input: 'think', sessionId: 'hung-001', limits: { maxDurationMs: 300 } }),
    );
    expect(error).toMatchObject({
      code: 'BUDGET_EXHAUSTED',
      details: { limit: 'maxDurationMs', max: 300 },
    });
    expect(model.requests).toHaveLength(1);
    expect(ofType(events, 'budget.exhausted')).toHaveLength(1);
    const stored = (await root.sessions.get('hung-001'))!;
    expect(stored).toMatchObject({ status: 'failed', error: { code: 'BUDGET_EXHAUSTED' } });
    expect(stored.messages.at(-1)).toMatchObject({
      role: 'assistant',
      incomplete: true,
      content: [{ type: 'text', text: 'partial' }],
    });
  }, 30_000);

  it("maxDurationMs stops a model request in flight: 'finish' takes its last turn, without tools", async () => {
    const model = hungFirstTurn([{ text: 'the answer so far' }, { text: 'never asked' }]);
    const lead = root.child({ model, modelName: 'lead', tools: [ping] });
    const { events, error } = await collect(
      lead.run({
        input: 'think',
        sessionId: 'hung-002',
        limits: { maxDurationMs: 300, onBudgetExhausted: 'finish' },
      }),
    );
    expect(error).toBeUndefined();
    expect(ofType(events, 'session.completed')[0]).toMatchObject({
      content: 'the answer so far',
    });
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.tools.length).toBeGreaterThan(0);
    expect(model.requests[1]!.tools).toEqual([]);
    const roles = (await root.sessions.get('hung-002'))!.messages.map((m) => m.role);
    // the stopped turn's partial answer, the note that the budget is spent, the last turn
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant']);
  }, 30_000);

  it('maxDurationMs counts from when the run starts (its events are read), not from run()', async () => {
    const model = scriptedModel([{ text: 'done', usage: u(10, 10) }]);
    const lead = root.child({ model, modelName: 'lead' });
    const events = lead.run({
      input: 'answer',
      sessionId: 'late-001',
      limits: { maxDurationMs: 60_000 },
    });
    // an hour passes before the host reads the run's events (the clock moved on: no sleep)
    const now = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => now() + 3_600_000);
    const { error } = await collect(events);
    expect(error).toBeUndefined();
    expect(model.requests).toHaveLength(1);
    const spent = (await root.sessions.get('late-001'))!.budget!.spent.durationMs;
    expect(spent).toBeLessThan(60_000);
  });

  it('maxDurationMs: the time a run is parked on a wait does not count', async () => {
    const model = scriptedModel([pingTurn(u(10, 10)), { text: 'done', usage: u(10, 10) }]);
    const lead = root.child({
      model,
      modelName: 'lead',
      tools: [ping],
      policy: { default: 'ask', park: true },
    });
    const parked = await lead.send('ping when allowed', {
      sessionId: 'parked-001',
      limits: { maxDurationMs: 60_000 },
    });
    expect(parked.status).toBe('parked');
    const before = (await root.sessions.get('parked-001'))!.budget!.spent.durationMs;
    expect(before).toBeLessThan(60_000);
    // an hour passes while the run is parked (the clock a budget reads, moved on: no sleep)
    const now = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => now() + 3_600_000);
    await lead.decide('parked-001', parked.waits![0]!.id, { decision: 'allow' });
    const { events, error } = await collect(lead.resume('parked-001'));
    expect(error).toBeUndefined();
    expect(ofType(events, 'session.completed')[0]).toMatchObject({ content: 'done' });
    expect(ofType(events, 'budget.warning')).toEqual([]);
    const after = (await root.sessions.get('parked-001'))!.budget!;
    // the limits the run started with came back with it, and counting went on
    expect(after.limits).toEqual({ maxDurationMs: 60_000 });
    expect(after.spent.durationMs).toBeGreaterThanOrEqual(before);
    expect(after.spent.durationMs).toBeLessThan(60_000);
  });
});
