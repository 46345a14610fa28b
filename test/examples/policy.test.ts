/**
 * `npx tsx examples/policy.ts`, the example of docs/guide/policy.md, run as a process: each
 * stage of the policy decides one call, and without an approver `ask` refuses.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/policy.ts', () => {
  it('decides each call at its stage, with and without an approver', async () => {
    const { code, stdout, stderr } = await runExample('policy.ts');
    expect(code, stderr).toBe(0);
    const [withApprover, without] = stdout.split('without an approver:\n');
    expect(withApprover).toBe(
      [
        'with an approver:',
        'read_file: allow (stage allow)',
        '  ran',
        'write_file: allow (stage approval)',
        '  ran',
        'write_file: redirect (stage rule)',
        '  not run: redirected',
        'delete_file: deny (stage deny)',
        '  not run: TOOL_DENIED',
        'the model is told: System files are off limits; write under ./ instead.',
        '',
      ].join('\n'),
    );
    expect(without).toContain(
      'write_file: deny (stage default)\n  not run: TOOL_APPROVAL_REQUIRED\n',
    );
    expect(without).toContain('delete_file: deny (stage deny)\n  not run: TOOL_DENIED\n');
  });
});
