import { describe, expect, it } from 'vitest';
import { totalDeadline } from './call-deadline.js';
import { callRequest } from './call-request.js';

const signal = new AbortController().signal;
const tool = { name: 'echo', inputSchema: { type: 'object' as const } };

describe('callRequest', () => {
  it('passes the definition it is given, and no progress handler when nobody listens', () => {
    const request = callRequest({ signal, timeoutMs: 5_000 }, undefined, tool);
    expect(request).toEqual({
      signal,
      timeout: 5_000,
      resetTimeoutOnProgress: true,
      toolDefinition: tool,
    });
  });

  it('adds the progress handler, the total timeout and the deadline signal when there are some', () => {
    const onProgress = () => undefined;
    const deadline = totalDeadline('s', 60_000)!;
    try {
      const request = callRequest(
        { signal, timeoutMs: 1_000, maxTotalTimeoutMs: 60_000, onProgress },
        deadline,
        undefined,
      );
      expect(request).toMatchObject({ maxTotalTimeout: 60_000, onprogress: onProgress });
      expect(request).not.toHaveProperty('toolDefinition');
      expect(request['signal']).not.toBe(signal); // the caller's and the deadline's
      expect((request['signal'] as AbortSignal).aborted).toBe(false);
    } finally {
      deadline.dispose();
    }
  });
});
