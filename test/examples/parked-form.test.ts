/**
 * `npx tsx examples/parked-form.ts`, the `input_required` example of docs/guide/waits.md, run
 * as a process: a server's question parks the run in a SQLite file, another agent answers the
 * form, a third resumes and the server finishes the transfer.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';

describe('examples/parked-form.ts', () => {
  it('parks on the server question, is answered elsewhere, and the server finishes the call', async () => {
    const { code, stdout, stderr } = await new Promise<{
      code: number;
      stdout: string;
      stderr: string;
    }>((resolve) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', 'examples/parked-form.ts'],
        { cwd: ROOT, timeout: 60_000, encoding: 'utf8' },
        (error, out, err) =>
          resolve({
            code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
            stdout: out,
            stderr: err,
          }),
      ),
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('[parked] parked: elicitation "Send 42 EUR to ana?"');
    expect(stdout).toContain('[form] fields: ok');
    expect(stdout).toContain('[decided] applied: true');
    expect(stdout).toContain('[completed] Done (sent 42 EUR to ana).');
  });
});
