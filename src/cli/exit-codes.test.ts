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

describe('exit codes', () => {
  it.each([
    [new MusterError('INVALID_CONFIGURATION', 'x'), EXIT_CODES.usage],
    [new McpError('MCP_CONNECTION_FAILED', 'x'), EXIT_CODES.mcp],
    [new McpError('MCP_AUTH_REQUIRED', 'x'), EXIT_CODES.auth],
    [new ToolError('TOOL_DENIED', 'x'), EXIT_CODES.denied],
    [new ToolError('TOOL_EXECUTION_FAILED', 'x'), EXIT_CODES.tool],
    [new SessionError('SESSION_NOT_FOUND', 'x', { sessionId: 's' }), EXIT_CODES.session],
    [new ModelError('MODEL_REQUEST_FAILED', 'x'), EXIT_CODES.model],
    [new MusterError('AGENT_LIMIT_EXCEEDED', 'x'), EXIT_CODES.limit],
    [new MusterError('ABORTED', 'x'), EXIT_CODES.aborted],
    [new MusterError('INTERNAL_ERROR', 'x'), EXIT_CODES.internal],
  ])('maps %s to its family exit code', (error, code) => {
    expect(exitCodeOf(error.code)).toBe(code);
  });

  it('gives every error code an exit code, and only success exits 0', () => {
    for (const code of MUSTER_ERROR_CODES) expect(exitCodeOf(code)).toBeGreaterThan(0);
  });
});
