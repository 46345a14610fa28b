/**
 * `npx tsx examples/query.ts`, the example of docs/guide/query.md, run as a process: the
 * message stream of a query() host, a pre-approved call, a call `canUseTool` denies, and the
 * `result` message listing the denial.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/query.ts', () => {
  it('streams query() messages and reports the denied call', async () => {
    const { code, stdout, stderr } = await runExample('query.ts');
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('[init] mcp__crm__get_orders, mcp__crm__cancel_order');
    expect(lines.slice(1, 4)).toEqual([
      '[tool_use] mcp__crm__get_orders',
      '[tool_result] [{"userId":"user-123","id":"o-1","status":"paid"}]',
      '[tool_use] mcp__crm__cancel_order',
    ]);
    expect(lines[4]).toMatch(/^\[tool_result\] Error \[TOOL_DENIED\]: .*ask a person/);
    expect(lines.at(-2)).toBe(
      '[result] success after 3 turns: user-123 has one paid order, o-1; I was not allowed to cancel it.',
    );
    expect(lines.at(-1)).toBe('[denied] mcp__crm__cancel_order');
  });
});
