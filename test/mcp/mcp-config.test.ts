import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, createSdkMcpServer } from '../../src/index.js';
import type { McpServerConfig } from '../../src/index.js';

let workdir: string;
let home: string;
const savedHome = process.env['MUSTER_HOME'];

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}
const projectFile = () => join(workdir, '.muster', 'mcp.json');
const userFile = () => join(home, 'mcp.json');
const stdio = (arg: string): McpServerConfig => ({ command: process.execPath, args: [arg] });

beforeEach(() => {
  workdir = mkdtempSync(join(tmpdir(), 'muster-wd-'));
  home = mkdtempSync(join(tmpdir(), 'muster-home-'));
  process.env['MUSTER_HOME'] = home;
});
afterEach(() => {
  if (savedHome === undefined) delete process.env['MUSTER_HOME'];
  else process.env['MUSTER_HOME'] = savedHome;
});

const names = (agent: ReturnType<typeof createAgent>) =>
  agent.mcp.list().map((s) => [s.name, s.source, s.status]);

describe('MCP configuration', () => {
  it('merges the project file, the user file (MUSTER_HOME) and constructor servers by name', () => {
    writeJson(projectFile(), { mcpServers: { proj: stdio('p.mjs') } });
    writeJson(userFile(), {
      mcpServers: { mine: { type: 'http', url: 'https://example.com/mcp' } },
    });
    const agent = createAgent({ workdir, mcpServers: { ctor: stdio('c.mjs') } });
    expect(names(agent)).toEqual([
      ['proj', 'project', 'pending'],
      ['mine', 'user', 'pending'],
      ['ctor', 'options', 'pending'],
    ]);
  });

  it('deduplicates identical normalized declarations and keeps the first source', () => {
    writeJson(projectFile(), {
      mcpServers: { same: { args: ['x.mjs'], command: process.execPath, type: 'stdio' } },
    });
    writeJson(userFile(), { mcpServers: { same: { command: process.execPath, args: ['x.mjs'] } } });
    const agent = createAgent({ workdir, mcpServers: { same: stdio('x.mjs') } });
    expect(names(agent)).toEqual([['same', 'project', 'pending']]);
  });

  it('fails on conflicting declarations of one name, naming both sources', () => {
    writeJson(projectFile(), {
      mcpServers: { docs: { type: 'http', url: 'https://a.example/mcp' } },
    });
    writeJson(userFile(), { mcpServers: { docs: { type: 'http', url: 'https://b.example/mcp' } } });
    expect(() => createAgent({ workdir })).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIGURATION',
        message: expect.stringMatching(/project.*user/s),
      }),
    );
    expect(() =>
      createAgent({ workdir, mcp: { strictConfig: true }, mcpServers: { docs: stdio('a') } }),
    ).not.toThrow();
  });

  it('strictConfig skips both files entirely, even broken ones', () => {
    writeFileSync(join(home, 'mcp.json'), '{ not json');
    expect(() => createAgent({ workdir })).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIGURATION',
        message: expect.stringContaining('not valid JSON'),
      }),
    );
    const agent = createAgent({ workdir, mcp: { strictConfig: true } });
    expect(agent.mcp.list()).toEqual([]);
  });

  it('reads files once, at construction, and never expands variables', () => {
    writeJson(projectFile(), {
      mcpServers: { a: { command: '${HOME}/bin/server', args: ['$PATH'] } },
    });
    const agent = createAgent({ workdir });
    writeJson(projectFile(), { mcpServers: { b: stdio('b') } });
    expect(names(agent)).toEqual([['a', 'project', 'pending']]);
  });

  it.each([
    [{ mcpServers: { s: { command: 'x', extra: 1 } } }, 'extra'],
    [{ mcpServers: { s: { type: 'http', url: 'https://e.com/mcp', header: {} } } }, 'header'],
    [{ mcpServers: { s: { type: 'ftp', url: 'x' } } }, 'unknown type'],
    [{ mcpServers: { s: { type: 'sdk', server: {} } } }, 'createSdkMcpServer'],
    [{ mcpServers: { s: { type: 'http', url: 'http://example.com/mcp' } } }, 'https'],
    [{ mcpServers: { 'bad name': { command: 'x' } } }, 'server name'],
    [{ mcpServers: { a__b: { command: 'x' } } }, 'server name'],
    [{ mcp: { unknown: true } }, 'unknown'],
    [{ mcp: { startupConcurrency: 0 } }, 'startupConcurrency'],
    [{ mcpServers: { s: { type: 'sse', url: 'https://e.com/sse' } } }, 'mcp.transports'],
  ])('rejects %j with INVALID_CONFIGURATION', (options, mention) => {
    expect(() => createAgent({ workdir, ...(options as object) })).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIGURATION',
        message: expect.stringContaining(mention),
      }),
    );
  });

  it('refuses credentials in files; files cannot declare in-process servers', () => {
    writeJson(projectFile(), {
      mcpServers: {
        s: {
          type: 'http',
          url: 'https://e.com/mcp',
          auth: { type: 'bearer', token: 't0ken-value' },
        },
      },
    });
    expect(() => createAgent({ workdir })).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIGURATION',
        message: expect.not.stringContaining('t0ken-value'),
      }),
    );
    writeJson(projectFile(), { mcpServers: { s: { type: 'sdk' } } });
    expect(() => createAgent({ workdir })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });

  it('allowedServers disables other process and remote servers but never in-process ones', () => {
    const server = createSdkMcpServer({ name: 'inproc' });
    const agent = createAgent({
      workdir,
      mcp: { strictConfig: true, allowedServers: ['keep'] },
      mcpServers: { keep: stdio('k'), drop: stdio('d'), inproc: { type: 'sdk', server } },
    });
    expect(names(agent)).toEqual([
      ['keep', 'options', 'pending'],
      ['drop', 'options', 'disabled'],
      ['inproc', 'options', 'pending'],
    ]);
    expect(agent.mcp.list()[1]?.error?.message).toContain('allowedServers');
  });

  it('a file server on a transport that is not allowed shows as disabled; sse is allowed when listed', () => {
    writeJson(projectFile(), { mcpServers: { legacy: { type: 'sse', url: 'https://e.com/sse' } } });
    expect(names(createAgent({ workdir }))).toEqual([['legacy', 'project', 'disabled']]);
    expect(names(createAgent({ workdir, mcp: { transports: ['stdio', 'http', 'sse'] } }))).toEqual([
      ['legacy', 'project', 'pending'],
    ]);
  });

  it('construction starts nothing and list() has no secrets', () => {
    const agent = createAgent({
      workdir,
      mcp: { strictConfig: true },
      mcpServers: {
        remote: {
          type: 'http',
          url: 'https://e.com/mcp',
          headers: { 'X-Key': 'HEADER-SECRET-1' },
          auth: { type: 'bearer', token: 'BEARER-SECRET-2' },
        },
        local: { command: process.execPath, args: ['s.mjs'], env: { API_KEY: 'ENV-SECRET-3' } },
      },
    });
    const text = JSON.stringify(agent.mcp.list());
    for (const secret of ['HEADER-SECRET-1', 'BEARER-SECRET-2', 'ENV-SECRET-3', 'e.com', 's.mjs'])
      expect(text).not.toContain(secret);
    expect(agent.mcp.list().every((s) => s.status === 'pending')).toBe(true);
  });
});
