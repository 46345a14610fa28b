/**
 * `npx tsx examples/hooks.ts`, the example of docs/guide/hooks.md, run as a process: a
 * beforeTool hook rewrites the arguments that run, another denies, an afterTool hook redacts.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';

describe('examples/hooks.ts', () => {
  it('runs the rewritten call, denies the other, and shows only the redacted result', async () => {
    const { code, stdout, stderr } = await runExample('hooks.ts');
    expect(code, stderr).toBe(0);
    // the two calls are read-only and run at once: each call's lines keep their order, but
    // the other call's lines may come between them
    const lines = stdout.split('\n');
    const denied = lines.indexOf('hook: deny, staff records are not searchable');
    expect(denied).toBeGreaterThanOrEqual(0);
    expect(lines.indexOf('-> TOOL_DENIED')).toBeGreaterThan(denied);
    expect(stdout).toContain('called with {"email":"ana@example.com","limit":5}\n');
    expect(stdout).toContain('-> found ana@example.com (limit 5): card [card], phone');
    expect(stdout).not.toContain('4111');
    expect(stdout).not.toContain('bo@staff.example'); // the denied call never ran
  });
});
