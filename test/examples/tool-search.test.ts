/**
 * `npx tsx examples/tool-search.ts`, the example of docs/guide/tool-search.md, run as a
 * process: 41 tools over the budget, the model is shown `tool_search` and the always-loaded
 * tool, finds the refund tool, gets its definition on the next turn and calls it.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/tool-search.ts', () => {
  it('searches, loads the find on the next turn and calls it', async () => {
    const { code, stdout, stderr } = await runExample('tool-search.ts');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(
      '- mcp__billing__refund_payment: Refunds a customer payment, in part or in full.',
    );
    expect(stdout).toContain(
      '[turn 1 tools] mcp__billing__list_billing_record, context, tool_search\n',
    );
    expect(stdout).toContain(
      '[turn 2 tools] mcp__billing__list_billing_record, context, tool_search, mcp__billing__refund_payment\n',
    );
    expect(stdout).toContain('[answer] Refunded 20 EUR.');
  });
});
