/**
 * The createLiteAgent-style and LotaGateAgent-style hosts of docs/migrating.md
 * (examples/migrating/) run against real stdio and HTTP fixtures with a scripted model, and
 * the guide shows exactly the code of all three host files, so the two cannot drift.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/index.js';
import type { AuthorizationRequest } from '../../src/index.js';
import { runLiteAgentHost } from '../../examples/migrating/lite-agent-host.js';
import { runLotaGateHost } from '../../examples/migrating/lotagate-host.js';
import {
  filesystemStdioConfig,
  startDualHttpServer,
  stdioConfig,
} from '../support/mcp-fixtures.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The code between `// #region host` and `// #endregion host`. */
function hostRegion(source: string): string {
  const start = source.indexOf('// #region host\n');
  const end = source.indexOf('// #endregion host');
  if (start < 0 || end < 0) throw new Error('no host region');
  return source.slice(start + '// #region host\n'.length, end).trimEnd();
}

describe('docs/migrating.md', () => {
  it.each(['query-host.ts', 'lite-agent-host.ts', 'lotagate-host.ts'])(
    'shows the code of examples/migrating/%s exactly',
    (file) => {
      const code = hostRegion(read(`examples/migrating/${file}`));
      expect(code.length).toBeGreaterThan(200);
      expect(read('docs/migrating.md')).toContain(code);
    },
  );
});

describe('the createLiteAgent-style host on Muster', () => {
  it('asks the host before connecting and calling, registers a server at run time, and answers', async () => {
    const workdir = mkdtempSync(join(tmpdir(), 'muster-lite-'));
    // a project file that strictConfig must ignore
    mkdirSync(join(workdir, '.muster'));
    writeFileSync(
      join(workdir, '.muster', 'mcp.json'),
      JSON.stringify({ mcpServers: { fromfile: stdioConfig('basic-server.mjs') } }),
    );
    const asked: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__search__echo', arguments: { text: 'docs' } }] },
      (request) => ({
        text: `Found: ${JSON.stringify(request.messages.at(-1))}`,
      }),
    ]);
    const { statuses, text } = await runLiteAgentHost({
      model,
      workdir,
      docs: stdioConfig('basic-server.mjs', ['--name=docs']),
      search: stdioConfig('basic-server.mjs', ['--name=search']),
      requestHostApproval: async (request: AuthorizationRequest) => {
        asked.push(request.capability);
        return 'allow';
      },
    });
    expect(statuses.map((s) => [s.name, s.source, s.status])).toEqual([
      ['docs', 'options', 'pending'],
      ['search', 'runtime', 'connected'],
    ]);
    expect(asked).toEqual(['mcp_connect:search', 'mcp_connect:docs', 'mcp__search__echo']);
    expect(text).toContain('search: docs');
  }, 30_000);
});

describe('the LotaGateAgent-style host on Muster', () => {
  it('streams the answer; the model sees only the allow-listed tool, approved by the handler', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-lotagate-'));
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    const remote = await startDualHttpServer();
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__filesystem__list_directory', arguments: { path: dir } }] },
      (request) => ({ text: `Files: ${JSON.stringify(request.messages.at(-1))}` }),
    ]);
    let out = '';
    try {
      const { failed } = await runLotaGateHost({
        model,
        filesystem: filesystemStdioConfig(dir),
        remoteUrl: remote.url,
        remoteToken: 'remote-token-for-tests',
        write: (t) => void (out += t),
      });
      expect(failed).toBeUndefined();
    } finally {
      await remote.close();
    }
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual([
      'mcp__filesystem__list_directory',
    ]);
    expect(out).toContain('notes.txt');
    expect(out).not.toContain('[failed');
  }, 30_000);
});
