import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MAX_TOOL_NAME_LENGTH,
  MCP_TOOL_PREFIX,
  assertHostToolName,
  assertServerName,
  assignMcpToolNames,
  isValidToolName,
  plainMcpToolName,
  safeMcpToolName,
} from './index.js';

const MODEL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Server names as the spec allows them: 1-24 of `[A-Za-z0-9_-]`, without `__`. */
const serverName = fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/).filter((s) => !s.includes('__'));

/** Tool names as servers may send them: plain, dotted, spaced, unicode, long, empty. */
const toolName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
  fc.stringMatching(/^[A-Za-z0-9_.\- /:]{0,70}$/),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ minLength: 60, maxLength: 400 }),
  fc.constantFrom('', '.', ' ', '__', 'a.b', 'a_b', 'écrire', '日本語', '🙂', 'x'.repeat(1000)),
);

/** Returns what `fn` throws; fails the test when it does not throw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}

function expectWellFormed(name: string, server: string): void {
  expect(name).toMatch(MODEL_NAME);
  expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
  expect(name.startsWith(`${MCP_TOOL_PREFIX}${server}__`)).toBe(true);
}

describe('safeMcpToolName', () => {
  it('is always a valid model-facing name under the server prefix', () => {
    fc.assert(
      fc.property(serverName, toolName, fc.nat({ max: 1000 }), (server, tool, salt) => {
        expectWellFormed(safeMcpToolName(server, tool), server);
        expectWellFormed(safeMcpToolName(server, tool, salt), server);
      }),
      { numRuns: 500 },
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(serverName, toolName, (server, tool) => {
        expect(safeMcpToolName(server, tool)).toBe(safeMcpToolName(server, tool));
      }),
    );
  });

  it('gives distinct tools of one server distinct names', () => {
    fc.assert(
      fc.property(serverName, toolName, toolName, (server, a, b) => {
        fc.pre(a !== b);
        expect(safeMcpToolName(server, a)).not.toBe(safeMcpToolName(server, b));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same tool on two servers distinct names', () => {
    fc.assert(
      fc.property(serverName, serverName, toolName, (s1, s2, tool) => {
        fc.pre(s1 !== s2);
        expect(safeMcpToolName(s1, tool)).not.toBe(safeMcpToolName(s2, tool));
      }),
    );
  });

  it('changes with the salt', () => {
    expect(safeMcpToolName('srv', 'a.b', 1)).not.toBe(safeMcpToolName('srv', 'a.b', 0));
    expect(safeMcpToolName('srv', 'a.b')).toBe(safeMcpToolName('srv', 'a.b', 0));
  });

  it('keeps a readable, cleaned form of the tool name before the hash', () => {
    expect(safeMcpToolName('srv', 'files.read')).toMatch(/^mcp__srv__files_read_[0-9a-f]{10}$/);
    expect(safeMcpToolName('srv', '')).toMatch(/^mcp__srv___[0-9a-f]{10}$/);
  });

  it('fits 64 characters with the longest server name and a very long tool name', () => {
    const server = 's'.repeat(24);
    const name = safeMcpToolName(server, 'tool.'.repeat(500));
    expect(name).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expectWellFormed(name, server);
  });
});

describe('assignMcpToolNames', () => {
  const distinctTools = fc.uniqueArray(toolName, { maxLength: 25 });

  it('gives every tool a valid, distinct name under the server prefix', () => {
    fc.assert(
      fc.property(serverName, distinctTools, (server, tools) => {
        const assigned = assignMcpToolNames(server, tools);
        expect(assigned.map((a) => a.originalName)).toEqual(tools);
        for (const a of assigned) expectWellFormed(a.name, server);
        expect(new Set(assigned.map((a) => a.name)).size).toBe(tools.length);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps plain names when they are valid and marks every other name renamed', () => {
    fc.assert(
      fc.property(serverName, distinctTools, (server, tools) => {
        for (const a of assignMcpToolNames(server, tools)) {
          const plain = plainMcpToolName(server, a.originalName);
          if (!a.renamed) expect(a.name).toBe(plain);
          if (a.originalName === '' || !isValidToolName(plain)) expect(a.renamed).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(serverName, distinctTools, (server, tools) => {
        expect(assignMcpToolNames(server, tools)).toEqual(assignMcpToolNames(server, tools));
      }),
    );
  });

  it('gives the tools of two different servers distinct names', () => {
    fc.assert(
      fc.property(serverName, serverName, distinctTools, distinctTools, (s1, s2, t1, t2) => {
        fc.pre(s1 !== s2);
        const names = [
          ...assignMcpToolNames(s1, t1).map((a) => a.name),
          ...assignMcpToolNames(s2, t2).map((a) => a.name),
        ];
        expect(new Set(names).size).toBe(names.length);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps names distinct when a server name ends with `_` (mcp__a__ + `_b` vs mcp__a___ + `b`)', () => {
    // Both server names are valid by the spec (1-24 of [A-Za-z0-9_-], no `__`), and both tool
    // names are valid, yet both plain names are `mcp__a___b`.
    const first = assignMcpToolNames('a', ['_b']);
    const second = assignMcpToolNames('a_', ['b']);
    expect(first[0]!.name).not.toBe(second[0]!.name);
  });

  it('stays distinct when a tool is literally named like another tool`s safe name', () => {
    const server = 'srv';
    const safe = safeMcpToolName(server, 'a.b');
    const impostor = safe.slice(plainMcpToolName(server, '').length);
    for (const tools of [
      ['a.b', impostor],
      [impostor, 'a.b'],
    ]) {
      const assigned = assignMcpToolNames(server, tools);
      const byOriginal = new Map(assigned.map((a) => [a.originalName, a]));
      expect(byOriginal.get(impostor)).toEqual({
        originalName: impostor,
        name: safe,
        renamed: false,
      });
      expect(byOriginal.get('a.b')!.renamed).toBe(true);
      expect(byOriginal.get('a.b')!.name).not.toBe(safe);
      expectWellFormed(byOriginal.get('a.b')!.name, server);
    }
  });

  it('stays distinct for any tool whose name equals the tool part of another`s safe name', () => {
    fc.assert(
      fc.property(serverName, toolName, fc.boolean(), (server, tool, impostorFirst) => {
        const impostor = safeMcpToolName(server, tool).slice(plainMcpToolName(server, '').length);
        fc.pre(impostor !== tool);
        const tools = impostorFirst ? [impostor, tool] : [tool, impostor];
        const assigned = assignMcpToolNames(server, tools);
        for (const a of assigned) expectWellFormed(a.name, server);
        expect(assigned[0]!.name).not.toBe(assigned[1]!.name);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps ordinary names as mcp__<server>__<tool>', () => {
    expect(assignMcpToolNames('github', ['create_issue', 'list-repos', 'Search2'])).toEqual([
      { originalName: 'create_issue', name: 'mcp__github__create_issue', renamed: false },
      { originalName: 'list-repos', name: 'mcp__github__list-repos', renamed: false },
      { originalName: 'Search2', name: 'mcp__github__Search2', renamed: false },
    ]);
  });

  it('renames names that do not fit and keeps the original', () => {
    const [dotted, long, empty] = assignMcpToolNames('fs', ['files.read', 'x'.repeat(80), '']);
    expect(dotted).toMatchObject({ originalName: 'files.read', renamed: true });
    expect(dotted!.name).toBe(safeMcpToolName('fs', 'files.read'));
    expect(long).toMatchObject({ originalName: 'x'.repeat(80), renamed: true });
    expect(empty).toMatchObject({ originalName: '', renamed: true });
    expectWellFormed(empty!.name, 'fs');
  });

  it('returns an empty list for a server without tools', () => {
    expect(assignMcpToolNames('srv', [])).toEqual([]);
  });

  it('in strict mode rejects a server with names that do not fit', () => {
    const err = thrown(() => assignMcpToolNames('srv', ['ok', 'not.ok'], 'strict'));
    expect(err).toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { server: 'srv', tools: ['not.ok'] },
    });
    expect((err as Error).message).toContain("mcp.names 'safe'");
    expect(thrown(() => assignMcpToolNames('srv', [''], 'strict'))).toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
  });

  it('in strict mode either rejects or keeps every plain name', () => {
    fc.assert(
      fc.property(serverName, distinctTools, (server, tools) => {
        let assigned;
        try {
          assigned = assignMcpToolNames(server, tools, 'strict');
        } catch (err) {
          expect(err).toMatchObject({ code: 'INVALID_CONFIGURATION' });
          return;
        }
        for (const a of assigned) {
          expect(a.renamed).toBe(false);
          expect(a.name).toBe(plainMcpToolName(server, a.originalName));
          expect(a.name).toMatch(MODEL_NAME);
        }
      }),
    );
  });

  it('rejects a tool listed twice with TOOL_NAME_CONFLICT', () => {
    expect(thrown(() => assignMcpToolNames('srv', ['x', 'y', 'x']))).toMatchObject({
      code: 'TOOL_NAME_CONFLICT',
      details: { server: 'srv', tool: 'x' },
    });
    expect(thrown(() => assignMcpToolNames('srv', ['a.b', 'a.b']))).toMatchObject({
      code: 'TOOL_NAME_CONFLICT',
    });
    expect(thrown(() => assignMcpToolNames('srv', ['x', 'x'], 'strict'))).toMatchObject({
      code: 'TOOL_NAME_CONFLICT',
    });
  });

  it.each(['a__b', '', 'a'.repeat(25), 'a.b', 'a b', 'é', '__'])(
    'rejects the invalid server name %j with INVALID_CONFIGURATION',
    (server) => {
      expect(thrown(() => assignMcpToolNames(server, ['t']))).toMatchObject({
        code: 'INVALID_CONFIGURATION',
        details: { server },
      });
      expect(thrown(() => assertServerName(server))).toMatchObject({
        code: 'INVALID_CONFIGURATION',
      });
    },
  );

  it('accepts every valid server name', () => {
    fc.assert(
      fc.property(serverName, (server) => {
        expect(() => assertServerName(server)).not.toThrow();
      }),
    );
    expect(() => assertServerName('a'.repeat(24))).not.toThrow();
  });
});

describe('assertHostToolName', () => {
  it.each(['mcp__github__x', 'mcp__', 'mcp__x'])('rejects the reserved prefix in %j', (name) => {
    const err = thrown(() => assertHostToolName(name));
    expect(err).toMatchObject({ code: 'INVALID_CONFIGURATION', details: { tool: name } });
    expect((err as Error).message).toContain('reserved prefix');
  });

  it.each(['', 'a.b', 'a b', 'x'.repeat(65), 'é'])('rejects the invalid name %j', (name) => {
    expect(thrown(() => assertHostToolName(name))).toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
  });

  it('accepts valid names, including mcp without the double underscore', () => {
    for (const name of ['add', 'get-weather', 'x'.repeat(64), 'mcp_tool']) {
      expect(() => assertHostToolName(name)).not.toThrow();
    }
  });
});
