/**
 * `npx tsx examples/getting-started.ts`, the example of docs/guide/getting-started.md, run as
 * a process: the scripted model calls the host tool, and send() continues the session.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/getting-started.ts', () => {
  it('runs the tool, answers, and continues the same session with send()', async () => {
    const { code, stdout, stderr } = await runExample('getting-started.ts');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(
      /^add -> 42\nanswer: 2 \+ 40 = 42\nanswer: This conversation has 5 messages\. \(\d+ tokens\)\n$/,
    );
  });
});
