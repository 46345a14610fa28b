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
import { compileSearchRegex, scanWithRegex } from './tool-search-regex.js';
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
    onFound: (n) => found.push([...n]),
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

  it('gives up on a scan that takes too long instead of hanging', async () => {
    // a catastrophic pattern that passes the shape check cannot be written easily, so the
    // time limit is shown with a pattern compiled directly
    const texts = ['a'.repeat(30) + 'b'];
    expect(await scanWithRegex(/(a+)+$/, texts, 5, 20)).toBeUndefined();
    expect(await scanWithRegex(/a+b$/, texts, 5, 20)).toEqual([0]);
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
