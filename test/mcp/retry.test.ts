import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpClientModule } from '../../src/mcp/failures/client-errors.js';
import { loadClient } from '../../src/mcp/failures/client-errors.js';
import { McpError, MusterError, ToolError } from '../../src/errors/index.js';
import { retryableFailure, withRetry } from '../../src/mcp/connection/retry.js';

// withRetry and the retry decision, on the official client's own error classes.

let client: McpClientModule;
beforeAll(async () => {
  client = await loadClient();
});
afterEach(() => {
  vi.useRealTimers();
});

const wrapped = (cause: unknown, details: Record<string, unknown> = {}) =>
  new McpError('MCP_OPERATION_FAILED', 'Reading on s failed.', { cause, details });
const retry = { maxAttempts: 3, initialDelayMs: 1000 };

/** An attempt that fails with `errors` in turn, then succeeds; counts its calls. */
function failing(...errors: unknown[]) {
  let calls = 0;
  const attempt = async () => {
    calls++;
    if (calls <= errors.length) throw errors[calls - 1];
    return 'ok';
  };
  return { attempt, calls: () => calls };
}

describe('retryableFailure', () => {
  it('retries transport failures, timeouts, not-sent and -32603', () => {
    const sdk = (code: string, data?: unknown) => new client.SdkError(code as never, code, data);
    expect(retryableFailure(wrapped(sdk('REQUEST_TIMEOUT')))).toBe(true);
    expect(retryableFailure(wrapped(sdk('CONNECTION_CLOSED')))).toBe(true);
    expect(retryableFailure(wrapped(sdk('SEND_FAILED')))).toBe(true);
    expect(retryableFailure(wrapped(new client.ProtocolError(-32603, 'oops')))).toBe(true);
    expect(
      retryableFailure(wrapped(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))),
    ).toBe(true);
    expect(
      retryableFailure(
        new McpError('MCP_OPERATION_FAILED', 'x', { details: { reason: 'not-sent' } }),
      ),
    ).toBe(true);
    expect(retryableFailure(new McpError('MCP_CONNECTION_FAILED', 'x'))).toBe(true);
  });

  it('never retries definite refusals, auth, too-large, aborts or configuration errors', () => {
    for (const code of [-32601, -32602, -32002])
      expect(
        retryableFailure(wrapped(new client.ProtocolError(code, 'no'), { protocolCode: code })),
      ).toBe(false);
    expect(retryableFailure(wrapped(new client.SdkError('INVALID_RESULT' as never, 'bad')))).toBe(
      false,
    );
    expect(retryableFailure(new McpError('MCP_AUTH_REQUIRED', 'sign in'))).toBe(false);
    expect(
      retryableFailure(
        wrapped(
          new McpError('MCP_OPERATION_FAILED', 'big', {
            details: { reason: 'response-too-large' },
          }),
        ),
      ),
    ).toBe(false);
    expect(retryableFailure(new MusterError('ABORTED', 'stop'))).toBe(false);
    expect(retryableFailure(new MusterError('INVALID_CONFIGURATION', 'bad'))).toBe(false);
    expect(retryableFailure(new Error('who knows'))).toBe(false);
  });
});

describe('withRetry', () => {
  it('retries a read after a transient failure with the backoff', async () => {
    vi.useFakeTimers();
    const { attempt, calls } = failing(wrapped(new client.ProtocolError(-32603, 'flaky')));
    const done = withRetry(
      'read',
      retry,
      new AbortController().signal,
      'Reading',
      attempt,
      () => 1,
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await done).toBe('ok');
    expect(calls()).toBe(2);
  });

  it('does not retry a definite refusal (-32601)', async () => {
    const refusal = wrapped(new client.ProtocolError(-32601, 'no such method'), {
      protocolCode: -32601,
    });
    const { attempt, calls } = failing(refusal);
    await expect(
      withRetry('read', retry, new AbortController().signal, 'Reading', attempt),
    ).rejects.toBe(refusal);
    expect(calls()).toBe(1);
  });

  it('an abort during the backoff rejects with ABORTED, not the previous error', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const { attempt, calls } = failing(
      wrapped(new client.SdkError('REQUEST_TIMEOUT' as never, 't')),
    );
    const done = withRetry('read', retry, controller.signal, 'Reading on s', attempt).catch(
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    const err = await done;
    expect(MusterError.isInstance(err) && err.code).toBe('ABORTED');
    expect((err as Error).message).toContain('Reading on s');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls()).toBe(1);
  });

  it('a call is retried only when not sent, unless retryNonIdempotent', async () => {
    const unknown = new ToolError('TOOL_OUTCOME_UNKNOWN', 'timed out', {
      details: { reason: 'timeout' },
    });
    const notSent = new ToolError('TOOL_EXECUTION_FAILED', 'not sent', {
      details: { reason: 'not-sent' },
    });
    const signal = new AbortController().signal;
    const fast = { maxAttempts: 3, initialDelayMs: 0 };
    const a = failing(unknown);
    await expect(withRetry('call', fast, signal, 'Calling', a.attempt)).rejects.toBe(unknown);
    expect(a.calls()).toBe(1);
    const b = failing(notSent);
    expect(await withRetry('call', fast, signal, 'Calling', b.attempt)).toBe('ok');
    expect(b.calls()).toBe(2);
    const c = failing(unknown);
    expect(
      await withRetry('call', { ...fast, retryNonIdempotent: true }, signal, 'Calling', c.attempt),
    ).toBe('ok');
    expect(c.calls()).toBe(2);
  });

  it('refuses maxAttempts over 10 before the first attempt', async () => {
    const { attempt, calls } = failing();
    const err = await withRetry(
      'read',
      { maxAttempts: 11, initialDelayMs: 0 },
      new AbortController().signal,
      'R',
      attempt,
    ).catch((e: unknown) => e);
    expect(MusterError.isInstance(err) && err.code).toBe('INVALID_CONFIGURATION');
    expect(calls()).toBe(0);
  });
});
