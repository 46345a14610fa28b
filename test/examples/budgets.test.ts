/**
 * `npx tsx examples/budgets.ts`, the example of docs/guide/budgets.md, run as a process: a
 * budget spent with 'fail', then one a delegated run shares, spent with 'finish'.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/budgets.ts', () => {
  it('runs offline: warns, fails with BUDGET_EXHAUSTED, then finishes with a last answer', async () => {
    const { code, stdout, stderr } = await runExample('budgets.ts');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('[budget.warning] maxCostUsd: $0.00336 of $0.003');
    expect(stdout).toContain('[fail] BUDGET_EXHAUSTED: spent $0.00336');
    expect(stdout).toContain('[budget.exhausted] maxCostUsd: $0.00448 of $0.004');
    expect(stdout).toContain('[finish] Budgets count delegated runs too. (cost $0.0056)');
    expect(stdout).toMatch(/\[stored\] \{"tokens":11000,"costUsd":0.0056,"toolCalls":2,/);
  });
});
