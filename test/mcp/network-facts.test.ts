import { describe, expect, it } from 'vitest';
import { McpError, ToolError } from '../../src/errors/index.js';
import { wasNotSent } from '../../src/mcp/failures/failure-reasons.js';
import { networkFactOf } from '../../src/mcp/failures/network-facts.js';

/**
 * The shapes Node 20's `fetch` (undici) rejects with, as measured against real loopback
 * sockets: a `TypeError('fetch failed')` (or `'terminated'` for a body) whose `cause` carries
 * the errno `code` and `syscall`. Rebuilt here for the cases a test cannot make happen on
 * purpose (DNS, certificates); the others are made with real sockets in honest-outcomes.
 */
function fetchFailure(cause: Record<string, unknown>, message = 'fetch failed'): TypeError {
  return new TypeError(message, { cause: Object.assign(new Error('x'), cause) });
}

describe('networkFactOf / wasNotSent', () => {
  it.each([
    ['refused', { code: 'ECONNREFUSED', syscall: 'connect' }],
    ['no such host', { code: 'ENOTFOUND', syscall: 'getaddrinfo' }],
    ['DNS not answering', { code: 'EAI_AGAIN', syscall: 'getaddrinfo' }],
    ['wrong host name in the certificate', { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }],
    ['unknown issuer', { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }],
    ['self-signed certificate', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }],
    ['a reset while connecting', { code: 'ECONNRESET', syscall: 'connect' }],
    ['a connect timeout', { code: 'UND_ERR_CONNECT_TIMEOUT' }],
  ])('%s: not sent', (_, cause) => {
    const err = fetchFailure(cause);
    expect(networkFactOf(err)).toEqual({ kind: 'not-sent', code: cause.code });
    expect(wasNotSent(err)).toBe(true);
  });

  it.each([
    ['a reset after the request', { code: 'ECONNRESET', syscall: 'read' }, 'fetch failed'],
    ['the other side closed', { code: 'UND_ERR_SOCKET' }, 'fetch failed'],
    ['a reset mid-body', { code: 'ECONNRESET', syscall: 'read' }, 'terminated'],
    ['a short body', { code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' }, 'terminated'],
    ['a broken pipe', { code: 'EPIPE', syscall: 'write' }, 'fetch failed'],
  ])('%s: lost after it was sent, never "not sent"', (_, cause, message) => {
    const err = fetchFailure(cause, message);
    expect(networkFactOf(err)?.kind).toBe('lost');
    expect(wasNotSent(err)).toBe(false);
  });

  it('several addresses tried: not sent only when every attempt failed to connect', () => {
    const attempt = (code: string, syscall: string) =>
      Object.assign(new Error(code), { code, syscall });
    const allRefused = new TypeError('fetch failed', {
      cause: Object.assign(
        new AggregateError([
          attempt('ECONNREFUSED', 'connect'),
          attempt('ECONNREFUSED', 'connect'),
        ]),
        {
          code: 'ECONNREFUSED',
        },
      ),
    });
    expect(wasNotSent(allRefused)).toBe(true);
    const oneReset = new TypeError('fetch failed', {
      cause: new AggregateError([
        attempt('ECONNREFUSED', 'connect'),
        attempt('ECONNRESET', 'read'),
      ]),
    });
    expect(wasNotSent(oneReset)).toBe(false);
  });

  it('an unrecognized code, message text, or an outcome already called unknown is never "not sent"', () => {
    expect(wasNotSent(fetchFailure({ code: 'ESOMETHING' }))).toBe(false);
    expect(wasNotSent(new Error('connect ECONNREFUSED 127.0.0.1:1'))).toBe(false);
    const unknown = new ToolError('TOOL_OUTCOME_UNKNOWN', 'lost', {
      toolName: 't',
      cause: fetchFailure({ code: 'ECONNREFUSED' }),
      details: { reason: 'disconnected' },
    });
    expect(wasNotSent(unknown)).toBe(false);
    const lost = new McpError('MCP_DISCONNECTED', 'lost', { details: { reason: 'stream-lost' } });
    expect(wasNotSent(lost)).toBe(false);
    const tooLarge = new McpError('MCP_OPERATION_FAILED', 'big', {
      details: { reason: 'response-too-large' },
    });
    expect(wasNotSent(tooLarge)).toBe(false);
  });

  it("Muster's own not-sent and redirect refusals are not sent", () => {
    expect(
      wasNotSent(new McpError('MCP_OPERATION_FAILED', 'x', { details: { reason: 'not-sent' } })),
    ).toBe(true);
    expect(
      wasNotSent(new McpError('MCP_CONNECTION_FAILED', 'x', { details: { reason: 'redirect' } })),
    ).toBe(true);
  });
});
