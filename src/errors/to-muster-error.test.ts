import { describe, expect, it } from 'vitest';
import { MusterError, ToolError, abortedError, toMusterError } from './index.js';

describe('toMusterError and abortedError', () => {
  it('returns Muster errors as they are', () => {
    const err = new ToolError('TOOL_DENIED', 'm');
    expect(toMusterError(err, 'MCP_OPERATION_FAILED', 'ctx')).toBe(err);
  });

  it('wraps other values under the code, keeping the cause', () => {
    const cause = new Error('socket closed');
    const wrapped = toMusterError(cause, 'MCP_OPERATION_FAILED', 'listing tools');
    expect(wrapped).toMatchObject({
      code: 'MCP_OPERATION_FAILED',
      message: 'listing tools: socket closed',
    });
    expect((wrapped.cause as Error).message).toBe('socket closed');
    expect(toMusterError('text', 'ABORTED', 'ctx').message).toBe('ctx: text');
  });

  it('makes ABORTED errors with the reason as cause', () => {
    const reason = new Error('user cancelled');
    const err = abortedError('The run', reason);
    expect(err).toMatchObject({ code: 'ABORTED', message: 'The run was aborted: user cancelled' });
    expect((err.cause as Error).message).toBe('user cancelled');
    expect(abortedError('The call').message).toBe('The call was aborted');
    expect(MusterError.isInstance(err)).toBe(true);
  });
});
