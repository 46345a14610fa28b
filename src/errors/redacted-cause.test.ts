import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { McpError, MusterError, redactedCause } from './index.js';

const SECRET = 'CANARY-UNIT-4411';
const BRAND: unique symbol = Symbol.for('vendor.brand') as never;

/** A vendor-like error: a typed code and status, a body quoting the secret, a brand. */
class VendorError extends Error {
  readonly status = 401;
  readonly code = 'invalid_key';
  readonly body = { error: { message: `bad key ${SECRET}`, type: 'auth' }, list: [SECRET] };
  readonly [BRAND] = true;
  constructor(cause?: unknown) {
    super(`401 bad key ${SECRET}`, { cause });
    this.name = 'VendorError';
  }
}

describe('redactedCause', () => {
  it('masks every string along the chain and keeps class, name and typed facts', () => {
    const errno = Object.assign(new Error(`connect ECONNREFUSED ${SECRET}`), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    const copy = redactedCause(new VendorError(errno), [SECRET]) as VendorError;
    expect(inspect(copy, { depth: 20 })).not.toContain(SECRET);
    expect(copy).toBeInstanceOf(VendorError);
    expect(copy).toMatchObject({ name: 'VendorError', status: 401, code: 'invalid_key' });
    expect(copy.body.error.type).toBe('auth');
    expect(copy[BRAND]).toBe(true);
    expect(copy.cause).toMatchObject({ code: 'ECONNREFUSED', syscall: 'connect' });
  });

  it('masks credential-shaped text with no secret given, and copies a copy only for new secrets', () => {
    const first = redactedCause(new Error('Authorization: Bearer abc.def')) as Error;
    expect(first.message).toBe('Authorization: Bearer [redacted]');
    expect(redactedCause(first)).toBe(first);
    expect(redactedCause(first, ['Authorization'])).not.toBe(first);
  });

  it('keeps a Muster error as it is, or copies it with its code and details for new secrets', () => {
    const inner = new McpError('MCP_OPERATION_FAILED', `failed near ${SECRET}`, {
      server: 's',
      details: { server: 's', reason: 'not-sent' },
    });
    expect(redactedCause(inner)).toBe(inner);
    const copy = redactedCause(inner, [SECRET]) as McpError;
    expect(McpError.isInstance(copy)).toBe(true);
    expect(copy).toMatchObject({ code: 'MCP_OPERATION_FAILED', server: 's' });
    expect(copy.details).toEqual({ server: 's', reason: 'not-sent' });
    expect(copy.message).not.toContain(SECRET);
    expect(MusterError.isInstance(copy)).toBe(true);
  });

  it('turns values that are not plain data into markers, and survives cycles', () => {
    const body: Record<string, unknown> = {
      url: new URL(`https://host/x?token=${SECRET}`),
      headers: new Headers({ authorization: SECRET }),
    };
    body['self'] = body;
    const copy = redactedCause(Object.assign(new Error('x'), { body }), [SECRET]);
    const text = inspect(copy, { depth: 20 });
    expect(text).not.toContain(SECRET);
    expect(text).toContain('[Headers]');
  });
});
