/**
 * `npx tsx examples/parked-approval.ts`, the example of docs/guide/waits.md, run as a process:
 * a run parks in a SQLite file, another agent decides, a third resumes; one payment.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/parked-approval.ts', () => {
  it('parks, is decided elsewhere, resumes, and pays once', async () => {
    const { code, stdout, stderr } = await runExample('parked-approval.ts');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(
      '[parked] parked: approval of pay_invoice {"invoice":"INV-7","amountEur":120}',
    );
    expect(stdout).toMatch(/\[inbox\] 1 pending: wait_/);
    expect(stdout).toContain('[decided] applied: true');
    expect(stdout).toContain('[completed] Done (paid INV-7: 120 EUR).');
    expect(stdout).toMatch(
      /\[recorded\] \{"waitId":"wait_[^"]+","decision":"allow","reason":"approved by ana"/,
    );
    expect(stdout).toContain('[payments] [120]');
  });
});
