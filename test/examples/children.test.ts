/**
 * `npx tsx examples/children.ts`, the example of docs/guide/children.md, run as a process:
 * the lead calls the researcher as a tool, the researcher's run shows in the lead's stream
 * under its own run id, it is shown only the tool its policy leaves visible, and the root's
 * usage counts both runs.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/children.ts', () => {
  it('delegates through asTool and narrows what the child sees', async () => {
    const { code, stdout, stderr } = await runExample('children.ts');
    expect(code, stderr).toBe(0);
    expect(stdout.split('\n').slice(0, 5)).toEqual([
      "[researcher] mcp__docs__search -> v2 renamed 'begin' to 'start'.",
      "[researcher] done: Found it: v2 renamed 'begin' to 'start'.",
      "[lead] researcher -> Found it: v2 renamed 'begin' to 'start'.",
      "[lead] done: The researcher says: Found it: v2 renamed 'begin' to 'start'.",
      '[researcher was shown] mcp__docs__search',
    ]);
    const tokens = Number(/\[root usage\] (\d+) tokens/.exec(stdout)?.[1]);
    expect(tokens).toBeGreaterThan(0);
  });
});
