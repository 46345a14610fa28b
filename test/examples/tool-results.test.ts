/**
 * `npx tsx examples/tool-results.ts`, the example of docs/guide/tool-results.md, run as a
 * process: the model reads a file from server-filesystem once, as text; a large one is archived
 * with its whole result beside it; a direct call keeps structuredContent.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/tool-results.ts', () => {
  it('shows the text once to the model, the whole result to the archive and a direct call', async () => {
    const { code, stdout, stderr } = await runExample('tool-results.ts');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('[model reads]\n# Notes\n"Ship on Friday," said Ana.\n\n');
    expect(stdout).toMatch(
      /\[model reads, last line\] \[the whole result, with its structuredContent, is archived as JSON: ref=ref_\w+, \d+ bytes\]/,
    );
    expect(stdout).toMatch(
      /\[archived\] ref_… application\/json, \d+ bytes\n\[archived\] ref_… text\/plain, 26000 bytes/,
    );
    expect(stdout).toContain(
      '[direct call] structuredContent: {"content":"# Notes\\n\\"Ship on Friday,\\" said Ana.\\n"}',
    );
  });
});
