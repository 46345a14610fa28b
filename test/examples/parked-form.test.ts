/**
 * `npx tsx examples/parked-form.ts`, the `input_required` example of docs/guide/waits.md, run
 * as a process: a server's question parks the run in a SQLite file, another agent answers the
 * form, a third resumes and the server finishes the transfer.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/parked-form.ts', () => {
  it('parks on the server question, is answered elsewhere, and the server finishes the call', async () => {
    const { code, stdout, stderr } = await runExample('parked-form.ts');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('[parked] parked: elicitation "Send 42 EUR to ana?"');
    expect(stdout).toContain('[form] fields: ok');
    expect(stdout).toContain('[decided] applied: true');
    expect(stdout).toContain('[completed] Done (sent 42 EUR to ana).');
  });
});
