/**
 * `npx tsx examples/watching.ts`, the example of docs/guide/watching.md, run as a process: a
 * UI attaches to a running session's log in a SQLite file, reloads, attaches again after the
 * last seq it showed, and steers the run, which takes the message before its next request.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/watching.ts', () => {
  it('watches a run, resumes after a reload without a hole or a repeat, and steers it', async () => {
    const { code, stdout, stderr } = await runExample('watching.ts');
    expect(code, stderr).toBe(0);
    const shown = stdout
      .split('\n')
      .filter((l) => l.startsWith('[ui] ') || l.startsWith('[reload] '));
    expect(shown).toEqual([
      '[ui] 1 session.started',
      '[ui] 2 model.completed',
      '[reload] the page kept afterSeq 2',
      '[ui] 3 tool.decision',
      '[ui] 4 tool.called',
      '[ui] 5 tool.completed',
      '[ui] 6 steering.delivered: Also check the March invoices.',
      '[ui] 7 model.completed',
      '[ui] 8 session.completed',
    ]);
    expect(stdout).toContain(
      '[answer] Done. I was asked: "Check the February invoices.", "Also check the March invoices.".',
    );
    expect(stdout).toContain(
      '[check] the run logged seq 1..8; the UI saw each once, in order: true',
    );
  });
});
