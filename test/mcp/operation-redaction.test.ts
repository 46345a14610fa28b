import { describe, expect, it } from 'vitest';
import { MusterError } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { stdioConfig } from '../support/mcp-fixtures.js';

// An operation's error message is redacted whole: the host-given URI or tool name in its
// prefix as well as the server's own text.

const CANARY = 'canary-op-secret-7f3a9c';

describe('operation failures carry no secrets', () => {
  it('a failed read of a URI holding a declared secret never shows it', async () => {
    const m = new McpClientManager(
      { features: { ...stdioConfig('features-server.mjs'), env: { API_TOKEN: CANARY } } },
      { strictConfig: true },
    );
    try {
      const err = await m
        .readResource('features', `missing://doc?token=${CANARY}`)
        .catch((e: unknown) => e);
      expect(MusterError.isInstance(err)).toBe(true);
      const shown = `${(err as Error).message} ${JSON.stringify(err)}`;
      expect(shown).toContain('missing://doc');
      expect(shown).not.toContain(CANARY);
    } finally {
      await m.close();
    }
  }, 20_000);
});
