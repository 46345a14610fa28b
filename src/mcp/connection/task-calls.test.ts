import { beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '../../errors/index.js';
import { loadClient } from '../failures/client-errors.js';
import type { McpClientModule } from '../failures/client-errors.js';
import { transientPollFailure } from './task-calls.js';

// Which failed `tasks/get` a poll survives (SPEC 15.3): decided on typed facts only.

let client: McpClientModule;
beforeAll(async () => {
  client = await loadClient();
});

describe('transientPollFailure', () => {
  it('retries a request that was not sent, one that timed out, and an HTTP 5xx', () => {
    const notSent = new McpError('MCP_OPERATION_FAILED', 'x', { details: { reason: 'not-sent' } });
    const timedOut = new McpError('MCP_OPERATION_FAILED', 'x', {
      details: { reason: 'timed-out', limit: 'timeoutMs', limitMs: 10 },
    });
    const { SdkError } = client;
    const slow = new SdkError('REQUEST_TIMEOUT' as never, 'x', { timeout: 10 });
    const busy = new SdkError('CLIENT_HTTP_NOT_IMPLEMENTED' as never, 'x', { status: 503 });
    for (const err of [notSent, timedOut, slow, busy]) expect(transientPollFailure(err)).toBe(true);
  });

  it('never retries a refusal: 401, 403, a JSON-RPC error, an invalid answer, an unknown failure', () => {
    const { SdkError, ProtocolError } = client;
    const refused = [
      new SdkError('CLIENT_HTTP_NOT_IMPLEMENTED' as never, 'x', { status: 401 }),
      new SdkError('CLIENT_HTTP_NOT_IMPLEMENTED' as never, 'x', { status: 403 }),
      new ProtocolError(-32603, 'x'),
      new McpError('MCP_OPERATION_FAILED', 'x', { details: { reason: 'invalid-response' } }),
      new Error('something else'),
    ];
    for (const err of refused) expect(transientPollFailure(err)).toBe(false);
  });
});
