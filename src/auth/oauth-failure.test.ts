import { describe, expect, it } from 'vitest';
import { McpError } from '../errors/index.js';
import { SecretRegistry } from '../util/index.js';
import { toAuthFailure, withinDeadline } from './oauth-failure.js';
import { Serial } from './serial.js';

describe('toAuthFailure', () => {
  it('keeps no foreign cause and masks known secrets in the text', () => {
    const secrets = new SecretRegistry(['verifier-canary-123456']);
    const foreign = new Error('Raw body: code_verifier=verifier-canary-123456');
    const err = toAuthFailure('docs', foreign, undefined, secrets, undefined);
    expect(McpError.isInstance(err)).toBe(true);
    expect(err.code).toBe('MCP_AUTH_REQUIRED');
    expect(err.cause).toBeUndefined();
    expect(err.message).not.toContain('verifier-canary-123456');
  });

  it('prefers a refusal of the guard over the error that followed it', () => {
    const refusal = new McpError('MCP_AUTH_REQUIRED', 'refused', {
      details: { reason: 'redirect-refused' },
    });
    const err = toAuthFailure('docs', new Error('later'), refusal, new SecretRegistry(), undefined);
    expect(err).toBe(refusal);
  });
});

describe('withinDeadline', () => {
  it('rejects with the deadline error when the work is late, and passes a prompt result', async () => {
    const late = withinDeadline(new Promise(() => undefined), 20, () => new Error('late'));
    await expect(late).rejects.toThrow('late');
    await expect(withinDeadline(Promise.resolve(7), 1_000, () => new Error('late'))).resolves.toBe(
      7,
    );
  });
});

describe('Serial', () => {
  it('runs steps one at a time in order, and a failed step does not stop the next', async () => {
    const serial = new Serial();
    const log: string[] = [];
    let release: () => void = () => undefined;
    const first = serial.run(async () => {
      log.push('a start');
      await new Promise<void>((resolve) => (release = resolve));
      log.push('a end');
      throw new Error('a failed');
    });
    const second = serial.run(async () => {
      log.push('b');
      return 2;
    });
    await Promise.resolve();
    expect(log).toEqual(['a start']);
    release();
    await expect(first).rejects.toThrow('a failed');
    await expect(second).resolves.toBe(2);
    expect(log).toEqual(['a start', 'a end', 'b']);
  });
});
