import { describe, expect, it } from 'vitest';
import { declaresExtension, prefersLegacyEra, verdictForStdioChoice } from './era-choice.js';

const bare = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };
const tasks = {
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
const stdio = { command: 'node' };

describe('prefersLegacyEra', () => {
  it('is true for a discover result without extensions, absent or empty', () => {
    expect(prefersLegacyEra(bare)).toBe(true);
    expect(prefersLegacyEra({ ...bare, capabilities: { extensions: {} } })).toBe(true);
    expect(prefersLegacyEra({ supportedVersions: ['2026-07-28'] })).toBe(true);
  });

  it('is false for one that declares an extension, and for what is no discover result', () => {
    expect(prefersLegacyEra(tasks)).toBe(false);
    expect(prefersLegacyEra({ bogus: true })).toBe(false);
    expect(prefersLegacyEra(undefined)).toBe(false);
  });
});

describe('declaresExtension', () => {
  it('is true only for capabilities whose extensions hold one', () => {
    expect(declaresExtension(tasks.capabilities)).toBe(true);
    expect(declaresExtension({ tools: {}, extensions: {} })).toBe(false);
    expect(declaresExtension({ tools: {} })).toBe(false);
    expect(declaresExtension({ extensions: ['io.example/x'] })).toBe(false);
    expect(declaresExtension(undefined)).toBe(false);
  });
});

describe('verdictForStdioChoice', () => {
  it('reads a stdio modern verdict without extensions as legacy', () => {
    expect(verdictForStdioChoice(stdio, { kind: 'modern', discover: bare })).toEqual({
      kind: 'legacy',
    });
  });

  it('keeps a verdict with extensions, one learned from a failed legacy trial, and remote ones', () => {
    const withTasks = { kind: 'modern', discover: tasks } as const;
    expect(verdictForStdioChoice(stdio, withTasks)).toBe(withTasks);
    const refused = { kind: 'modern', discover: bare, legacyRefused: true } as const;
    expect(verdictForStdioChoice(stdio, refused)).toBe(refused);
    const failed = { kind: 'modern', discover: bare, legacyFailed: true } as const;
    expect(verdictForStdioChoice(stdio, failed)).toBe(failed);
    const http = { type: 'http', url: 'https://example.com/mcp' } as const;
    const remote = { kind: 'modern', discover: bare } as const;
    expect(verdictForStdioChoice(http, remote)).toBe(remote);
    expect(verdictForStdioChoice(stdio, undefined)).toBeUndefined();
  });
});
