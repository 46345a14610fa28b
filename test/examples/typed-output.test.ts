/**
 * `npx tsx examples/typed-output.ts`, the example of docs/guide/output.md, run as a process:
 * a tool call, one repair turn, and the typed value printed.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/typed-output.ts', () => {
  it('runs offline: asks natively, repairs once, prints the typed value', async () => {
    const { code, stdout, stderr } = await runExample('typed-output.ts');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("[sent] output format 'forecast', strict: true");
    expect(stdout).toMatch(/\[repair\] .*temperatureC: Invalid input: expected number/);
    expect(stdout).toContain(
      '[output] {"city":"Oslo","temperatureC":4,"advice":"Take a coat.","hourly":{"09:00":2,"12:00":5}}',
    );
    expect(stdout).toContain('[typed] Oslo is 4.0 C at noon: 5');
  });
});
