/**
 * `npm run demo` (examples/demo/demo.ts), run as a process the way the README says: its
 * output shows MCP tools from an in-process server and from server-filesystem over stdio, a
 * policy decision each way, an archived result paged back with `context`, and the model's
 * text streamed as text (whole sentences on one line, not one line per delta).
 */
import { execFile } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';

let stdout = '';
let code: number | null = null;

beforeAll(async () => {
  await new Promise<void>((resolve) => {
    // exactly what the README runs (npm from PATH, as a user has it)
    execFile(
      'npm',
      ['run', '--silent', 'demo'],
      { cwd: ROOT, timeout: 90_000, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
      (error, out) => {
        code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        stdout = out;
        resolve();
      },
    );
  });
}, 120_000);

describe('npm run demo', () => {
  it('runs to the end and exits 0', () => {
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\[done\] 5 model turns/m);
  });

  it('uses tools of an in-process MCP server and of a stdio server from npm', () => {
    expect(stdout).toContain('[mcp] inventory connected');
    expect(stdout).toContain('[mcp] files connected');
    expect(stdout).toMatch(/\[result\] mcp__files__read_text_file: # Open orders/);
    expect(stdout).toMatch(/\[call\] mcp__inventory__stock_report/);
  });

  it('shows the policy allowing one call and denying another', () => {
    expect(stdout).toMatch(/\[policy\] mcp__files__read_text_file: allow/);
    expect(stdout).toMatch(/\[policy\] mcp__files__write_file: deny/);
    expect(stdout).toMatch(/\[result\] mcp__files__write_file \(refused\): .*TOOL_DENIED/);
    expect(stdout).not.toMatch(/\[call\] mcp__files__write_file/);
  });

  it('archives the large result and pages it back with the context tool', () => {
    const ref = /\[result\] mcp__inventory__stock_report: \[archived: ref=(ref_\w+)/.exec(
      stdout,
    )?.[1];
    expect(ref).toBeDefined();
    expect(stdout).toContain(`[call] context {"ref":"${ref}"`);
    expect(stdout).toMatch(/\[result\] context: "SKU-0840 on hand: 03/);
  });

  it('streams the model text as text: each turn on one line, not one line per delta', () => {
    expect(stdout).toContain(
      'model> Let me see what is in the workspace and what we have in stock.',
    );
    expect(stdout).toMatch(
      /^model> The policy does not let me write files here, so here is the plan instead: reorder at least 9 oak shelves \(SKU-0840\) before Friday\.$/m,
    );
  });
});
