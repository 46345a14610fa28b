import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import {
  foundToolNames,
  HostToolExecutor,
  runToolCall,
  ToolCatalog,
  ToolSearchExecutor,
  TOOL_SEARCH_TOOL_NAME,
} from './index.js';
import type { SearchableTool, ToolCallEnvironment } from './index.js';
import { compileSearchRegex, RegexTimeBudget, scanWithRegex } from './tool-search-regex.js';
import { ToolPolicy } from '../policy/index.js';

const tools: SearchableTool[] = [
  {
    name: 'mcp__billing__issue_refund',
    description: 'Gives money back to a customer for a charge.',
    inputSchema: { type: 'object', properties: { payment_id: { type: 'string' } } },
  },
  {
    name: 'mcp__weather__get_forecast',
    description: 'Predicts temperature and rain.\nSecond line of the description.',
    inputSchema: { type: 'object', properties: { latitude: { type: 'number' } } },
  },
];

function searcher() {
  const found: string[][] = [];
  const executor = new ToolSearchExecutor({
    tools: () => tools,
    onFound: (n) => {
      found.push([...n]);
    },
  });
  return { executor, found };
}

describe('tool_search regex safety', () => {
  it('refuses long patterns, backreferences and nested quantifiers', () => {
    expect(compileSearchRegex('a'.repeat(201))).toMatchObject({ ok: false });
    expect(compileSearchRegex('(a)\\1')).toMatchObject({ ok: false });
    for (const bad of ['(a+)+$', '(a|aa)*', '(x*y)+', '((ab)*c){2,}'])
      expect(compileSearchRegex(bad), bad).toMatchObject({ ok: false });
    expect(compileSearchRegex('([')).toMatchObject({ ok: false });
    for (const good of ['refund|forecast', '^mcp__billing__', '(issue|get)_\\w+', '[a-z]+_refund'])
      expect(compileSearchRegex(good), good).toMatchObject({ ok: true });
  });

  it('refuses many unbounded quantifiers and large repetition counts (slow without nesting)', () => {
    const slow = ['.*.*.*.*.*.*.*.*.*.*X', 'a*a*a*a*a*a*a*a*a*b', '[a-z]{0,65535}[a-z]{0,65535}x'];
    for (const bad of [...slow, 'a+b+c{2,}d*', 'x{101}', 'x{5,101}'])
      expect(compileSearchRegex(bad), bad).toMatchObject({ ok: false });
    expect(compileSearchRegex(slow[0]!)).toMatchObject({ reason: /10 unbounded quantifiers/ });
    expect(compileSearchRegex(slow[2]!)).toMatchObject({ reason: /65535 times/ });
    // quantifiers inside a class or escaped are characters; small counts are fine
    for (const good of ['^mcp__.*refund.*\\+', '[*+{}]+x', 'a\\*b\\*c\\*d*e', 'x{2,100}', 'x{3}y'])
      expect(compileSearchRegex(good), good).toMatchObject({ ok: true });
  });

  it('gives up on a scan that takes too long instead of hanging', async () => {
    // the time limit itself is shown with a pattern the shape check refuses, compiled
    // directly, so the scan is sure to be slow
    const texts = ['a'.repeat(30) + 'b'];
    expect(await scanWithRegex(/(a+)+$/, texts, 5, 20)).toBeUndefined();
    expect(await scanWithRegex(/a+b$/, texts, 5, 20)).toEqual([0]);
  });
});

describe('the regex time budget of a run', () => {
  it('stops scanning once the run has spent its regex time', async () => {
    let clock = 0;
    // every scan "takes" 30 ms on this clock (it moves 30 ms on each reading)
    const budget = new RegexTimeBudget(100, 20, () => (clock += 30));
    const texts = ['refund'];
    for (let i = 0; i < 4; i++) expect(await budget.scan(/refund/, texts, 5)).toEqual([0]);
    expect(budget.spentMs).toBe(120);
    expect(await budget.scan(/refund/, texts, 5)).toBe('spent');
  });

  it('through the tool: regex mode then answers with an error result pointing to ranked mode', async () => {
    let clock = 0;
    const executor = new ToolSearchExecutor({
      tools: () => tools,
      onFound: () => {},
      regexBudget: new RegexTimeBudget(100, 20, () => (clock += 120)),
    });
    const regex = { query: 'refund', mode: 'regex' };
    expect(foundToolNames(await executor.execute(TOOL_SEARCH_TOOL_NAME, regex))).toEqual([
      'mcp__billing__issue_refund',
    ]);
    const err = await executor.execute(TOOL_SEARCH_TOOL_NAME, regex).catch((e: unknown) => e);
    expect(MusterError.isInstance(err) && err.code).toBe('TOOL_ARGUMENTS_INVALID');
    expect((err as Error).message).toMatch(/used up their time for this run \(100 ms\).*"bm25"/);
    // ranked mode still answers
    const ranked = await executor.execute(TOOL_SEARCH_TOOL_NAME, { query: 'refund' });
    expect(foundToolNames(ranked)).toEqual(['mcp__billing__issue_refund']);
  });

  it('a run has 100 ms in all and each scan at most 20 ms', () => {
    const budget = new RegexTimeBudget();
    expect([budget.totalMs, budget.scanMs]).toEqual([100, 20]);
  });
});

describe('ToolSearchExecutor', () => {
  it('lists what it found with one-line descriptions and reports the names', async () => {
    const { executor, found } = searcher();
    const text = await executor.execute(TOOL_SEARCH_TOOL_NAME, { query: 'money back' });
    expect(text).toContain('available from your next turn');
    expect(text.split('\n')[1]).toBe(
      '- mcp__billing__issue_refund: Gives money back to a customer for a charge.',
    );
    expect(found).toEqual([['mcp__billing__issue_refund']]);
    expect(foundToolNames(text)).toEqual(['mcp__billing__issue_refund']);
  });

  it('matches a regex against names and descriptions, case-insensitively', async () => {
    const { executor, found } = searcher();
    const text = await executor.execute(TOOL_SEARCH_TOOL_NAME, {
      query: 'TEMPERATURE|^mcp__billing',
      mode: 'regex',
      limit: 5,
    });
    expect(foundToolNames(text)).toEqual([
      'mcp__billing__issue_refund',
      'mcp__weather__get_forecast',
    ]);
    expect(text).toContain(
      'mcp__weather__get_forecast: Predicts temperature and rain. Second line',
    );
    expect(found).toHaveLength(1);
  });

  it('says so when nothing matched, and fails a dangerous regex with TOOL_ARGUMENTS_INVALID', async () => {
    const { executor, found } = searcher();
    const none = await executor.execute(TOOL_SEARCH_TOOL_NAME, { query: 'zzzz' });
    expect(none).toMatch(/^No tools matched/);
    expect(foundToolNames(none)).toEqual([]);
    const err = await executor
      .execute(TOOL_SEARCH_TOOL_NAME, { query: '(a+)+', mode: 'regex' })
      .catch((e: unknown) => e);
    expect(MusterError.isInstance(err) && err.code).toBe('TOOL_ARGUMENTS_INVALID');
    expect(found).toEqual([[]]);
  });

  it('through the pipeline, bad input is an error result with TOOL_ARGUMENTS_INVALID', async () => {
    const { executor } = searcher();
    const catalog = await ToolCatalog.build([executor, new HostToolExecutor([])]);
    const env = {
      sessionId: 's',
      runId: 'r',
      signal: new AbortController().signal,
      catalog,
      policy: new ToolPolicy({ default: 'allow' }),
      beforeTool: [],
      afterTool: [],
      maxToolArgumentBytes: 10_000,
      maxToolArgumentDepth: 64,
      maxToolResultBytes: 100_000,
      emit: () => {},
      onObserverError: () => {},
    } satisfies ToolCallEnvironment;
    for (const args of [
      {},
      { query: 'x', limit: 500 },
      { query: 'x', mode: 'glob' },
      { query: 1 },
    ]) {
      const outcome = await runToolCall(
        {
          callId: 'c',
          name: TOOL_SEARCH_TOOL_NAME,
          argumentsText: JSON.stringify(args),
          iteration: 1,
        },
        env,
      );
      expect(outcome.result.isError, JSON.stringify(args)).toBe(true);
      expect(outcome.errorCode).toBe('TOOL_ARGUMENTS_INVALID');
    }
    const ok = await runToolCall(
      { callId: 'c', name: TOOL_SEARCH_TOOL_NAME, argumentsText: '{"query":"rain"}', iteration: 1 },
      env,
    );
    expect(ok.result.isError).toBeFalsy();
    expect(foundToolNames(ok.result.content)).toEqual(['mcp__weather__get_forecast']);
  });
});
