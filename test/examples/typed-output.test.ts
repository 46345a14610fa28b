/**
 * `npx tsx examples/typed-output.ts`, the example of docs/guide/output.md, run as a process:
 * a tool call, one repair turn, and the typed value printed.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';

function runExample(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'examples/typed-output.ts'],
      { cwd: ROOT, timeout: 60_000, encoding: 'utf8' },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        }),
    );
  });
}

describe('examples/typed-output.ts', () => {
  it('runs offline: asks natively, repairs once, prints the typed value', async () => {
    const { code, stdout, stderr } = await runExample();
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("[sent] output format 'forecast', strict: true");
    expect(stdout).toMatch(/\[repair\] .*temperatureC: Invalid input: expected number/);
    expect(stdout).toContain(
      '[output] {"city":"Oslo","temperatureC":4,"advice":"Take a coat.","hourly":{"09:00":2,"12:00":5}}',
    );
    expect(stdout).toContain('[typed] Oslo is 4.0 C at noon: 5');
  });
});
