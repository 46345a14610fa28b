import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../mcp/index.js';
import { statusLines } from './mcp-list.js';
import { Output } from './output.js';
import { textTable } from './text-table.js';

function output(color: boolean): Output {
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    env: {},
    cwd: '/',
    interactive: false,
  };
  return new Output(io, { json: false, color });
}

const tool = (name: string) => ({ name: `mcp__s__${name}`, originalName: name, stale: false });
const statuses: McpServerStatus[] = [
  {
    name: 'everything',
    source: 'project',
    type: 'stdio',
    status: 'connected',
    tools: Array.from({ length: 13 }, (_, i) => tool(`t${i}`)),
  },
  { name: 'fs', source: 'user', type: 'stdio', status: 'connected', tools: [tool('read')] },
  {
    name: 'docs',
    source: 'project',
    type: 'http',
    status: 'failed',
    tools: [],
    error: { code: 'MCP_CONNECTION_FAILED', message: 'refused' },
  },
];

// eslint-disable-next-line no-control-regex -- the ANSI color codes the table must not count
const plain = (line: string) => line.replace(/\u001b\[\d+m/g, '');

/** Where each column starts on a line of the table (runs of 2+ spaces separate columns). */
function columnStarts(line: string): number[] {
  const starts = [0];
  for (const m of line.matchAll(/ {2,}/g)) starts.push(m.index + m[0].length);
  return starts;
}

describe('item-05: muster mcp list lines its columns up', () => {
  it('pads every column to its widest cell, colors left out of the widths', () => {
    for (const color of [false, true]) {
      const lines = statusLines(output(color), statuses).map(plain);
      expect(lines).toEqual([
        'NAME        SCOPE    TYPE   STATUS     TOOLS',
        'everything  project  stdio  connected  13',
        'fs          user     stdio  connected  1',
        'docs        project  http   failed',
        '  MCP_CONNECTION_FAILED: refused',
      ]);
      // the status column starts at the same place on every row
      const rows = [0, 1, 2, 3].map((i) => columnStarts(lines[i]!));
      for (const r of rows) expect(r.slice(0, 4)).toEqual(rows[0]!.slice(0, 4));
    }
    expect(statusLines(output(true), statuses)[1]).toContain('\u001b[32mconnected\u001b[39m');
  });

  it('a table with a painted cell pads after the color codes', () => {
    const lines = textTable(
      ['A', 'B'],
      [
        [{ text: 'x', paint: (t) => `<${t}>` }, 'y'],
        ['long', 'z'],
      ],
    );
    expect(lines).toEqual(['A     B', '<x>     y', 'long  z']);
  });
});
