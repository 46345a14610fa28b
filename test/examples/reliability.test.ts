/**
 * `npx tsx examples/reliability.ts`, the example of docs/guide/reliability.md, run as a
 * process: progress keeps a slow call alive past its timeout, a hang and a crash are
 * TOOL_OUTCOME_UNKNOWN, and the next call reconnects the crashed server.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/reliability.ts', () => {
  it('reports progress, times out a hang, and reconnects after a crash', async () => {
    const { code, stdout, stderr } = await runExample('reliability.ts');
    expect(code, stderr).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => line.replace(/^\s*\d+ ms /, ''));
    expect(lines).toEqual([
      'server connecting',
      'server connected',
      'progress 1/3',
      'progress 2/3',
      'progress 3/3',
      'mcp__flaky__progress: progress done 3',
      'mcp__flaky__hang: TOOL_OUTCOME_UNKNOWN',
      'mcp__flaky__crash: TOOL_OUTCOME_UNKNOWN',
      'server connecting',
      'server connected',
      'mcp__flaky__count: call 1',
      'direct call: TOOL_OUTCOME_UNKNOWN',
    ]);
  });
});
