import { describe, expect, it } from 'vitest';
import { SecretRegistry } from './index.js';

describe('SecretRegistry', () => {
  it("a child scrubs its parent's values, as they grow; the parent never learns the child's", () => {
    const server = new SecretRegistry(['declared-header-value']);
    const alice = new SecretRegistry([], server);
    alice.add('alice-token-value');
    expect(alice.redact('declared-header-value alice-token-value')).not.toMatch(
      /declared-header-value|alice-token-value/,
    );
    // the server's registry grows later (the local user's token): the child scrubs it too
    server.add('local-user-token');
    expect(alice.redact('sent local-user-token')).not.toContain('local-user-token');
    // alice's token stays hers: the server's registry, and another principal's, never hold it
    const bob = new SecretRegistry([], server);
    expect(server.values()).not.toContain('alice-token-value');
    expect(bob.values()).not.toContain('alice-token-value');
    expect(server.redact('alice-token-value')).toBe('alice-token-value');
    // longest first, across both: a secret that contains another is masked whole
    alice.add('local-user-token-and-more');
    expect(alice.values()[0]).toBe('local-user-token-and-more');
  });
});
