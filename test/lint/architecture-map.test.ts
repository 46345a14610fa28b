import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md maps src/mcp room by room: one table per sub-folder (and one for the
// root's entry files), and every file a table names exists in that room, and is named there.

const ROOT = resolve(import.meta.dirname, '../..');
const MCP = join(ROOT, 'src/mcp');

/** The tables of the `src/mcp/` section: heading room ('' for the root) -> names in column 1. */
function mcpTables(): Map<string, string[]> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const start = doc.indexOf('### `src/mcp/`');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n### ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const tables = new Map<string, string[]>();
  let room: string | undefined;
  for (const line of section.split('\n')) {
    const heading = /^#### (?:root\b|`([a-z-]+)\/`)/.exec(line);
    if (heading) {
      room = heading[1] ?? '';
      tables.set(room, []);
      continue;
    }
    if (room === undefined || !line.startsWith('|')) continue;
    const first = line.split('|')[1] ?? '';
    for (const [, name] of first.matchAll(/`([^`]+)`/g)) tables.get(room)!.push(name!);
  }
  return tables;
}

/** The library files directly in `dir` (tests beside the code left out). */
const filesIn = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => e.name)
    .sort();

describe('docs/architecture.md: the map of src/mcp', () => {
  const tables = mcpTables();
  const rooms = readdirSync(MCP, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

  it('has one table per room and one for the root, and none for a room that does not exist', () => {
    expect(rooms.length).toBeGreaterThan(0);
    expect([...tables.keys()].sort()).toEqual(['', ...rooms].sort());
  });

  it.each(['', ...rooms])(
    'names only files that exist in room "%s", and every one of them',
    (room) => {
      const named = tables.get(room) ?? [];
      const present = filesIn(join(MCP, room));
      expect(named.filter((n) => !present.includes(n))).toEqual([]);
      expect(present.filter((f) => !named.includes(f))).toEqual([]);
    },
  );
});
