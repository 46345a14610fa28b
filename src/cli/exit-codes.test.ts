import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MUSTER_ERROR_CODES,
  McpError,
  ModelError,
  MusterError,
  SessionError,
  ToolError,
} from '../errors/index.js';
import { EXIT_CODES, exitCodeOf } from './exit-codes.js';

// The numbers are written out, not read from EXIT_CODES: scripts depend on them, so a change
// to the table in exit-codes.ts (or in docs/cli.md) must fail here.
const DOCUMENTED: Readonly<Record<keyof typeof EXIT_CODES, number>> = {
  ok: 0,
  internal: 1,
  usage: 2,
  mcp: 3,
  auth: 4,
  denied: 5,
  tool: 6,
  session: 7,
  model: 8,
  limit: 9,
  output: 10,
  budget: 11,
  aborted: 130,
};

/** The codes of the `## Exit codes` table of docs/cli.md, with the text of each row. */
function docsTable(): Map<number, string> {
  const docs = readFileSync(join(import.meta.dirname, '../../docs/cli.md'), 'utf8');
  const section = docs.split(/^## Exit codes$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = [...section.matchAll(/^\|\s*(\d+)\s*\|(.*)\|$/gm)];
  return new Map(rows.map((r) => [Number(r[1]), r[2] ?? '']));
}

describe('exit codes', () => {
  it.each([
    [new MusterError('INVALID_CONFIGURATION', 'x'), 2],
    [new McpError('MCP_CONNECTION_FAILED', 'x'), 3],
    [new McpError('MCP_AUTH_REQUIRED', 'x'), 4],
    [new ToolError('TOOL_DENIED', 'x'), 5],
    [new ToolError('TOOL_APPROVAL_REQUIRED', 'x'), 5],
    [new ToolError('TOOL_EXECUTION_FAILED', 'x'), 6],
    [new SessionError('SESSION_NOT_FOUND', 'x', { sessionId: 's' }), 7],
    [new ModelError('MODEL_REQUEST_FAILED', 'x'), 8],
    [new MusterError('AGENT_LIMIT_EXCEEDED', 'x'), 9],
    [new MusterError('BUDGET_EXHAUSTED', 'x'), 11],
    [new MusterError('ABORTED', 'x'), 130],
    [new MusterError('INTERNAL_ERROR', 'x'), 1],
  ])('maps %s to its documented exit code', (error, code) => {
    expect(exitCodeOf(error.code)).toBe(code);
  });

  it('keeps the documented numbers', () => {
    expect(EXIT_CODES).toEqual(DOCUMENTED);
  });

  it('documents exactly these codes in the table of docs/cli.md, each with its error family', () => {
    const table = docsTable();
    expect([...table.keys()]).toEqual(Object.values(DOCUMENTED));
    // every error code is named in the row of the exit code it maps to (or by its family prefix)
    for (const code of MUSTER_ERROR_CODES) {
      const row = table.get(exitCodeOf(code)) ?? '';
      const family = `${code.split('_')[0] ?? ''}_*`;
      expect(row.includes(`\`${code}\``) || row.includes(`\`${family}\``), code).toBe(true);
    }
  });

  it('gives every error code an exit code, and only success exits 0', () => {
    for (const code of MUSTER_ERROR_CODES) expect(exitCodeOf(code)).toBeGreaterThan(0);
  });
});
