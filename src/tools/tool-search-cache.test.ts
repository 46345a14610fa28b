import { describe, expect, it } from 'vitest';
import { searchIndexFor } from './index.js';
import type { SearchableTool } from './index.js';

const schema = { type: 'object', properties: { q: { type: 'string' } } } as const;
const other = { type: 'object' } as const;
const tools = (description: string): SearchableTool[] => [
  { name: 'mcp__a__one', description, inputSchema: schema },
  { name: 'mcp__a__two', description: 'Second.', inputSchema: other },
];

describe('searchIndexFor', () => {
  it('reuses the index of an equal snapshot (a new run over unchanged definitions)', () => {
    const first = searchIndexFor(tools('Sends a refund.'));
    // new arrays and entries, the same definitions' schema objects and text
    expect(searchIndexFor(tools('Sends a refund.'))).toBe(first);
  });

  it('builds anew when a definition changed, was added or was dropped', () => {
    const first = searchIndexFor(tools('Sends a refund.'));
    const changed = searchIndexFor(tools('Sends an invoice.'));
    expect(changed).not.toBe(first);
    expect(changed.search('invoice', 5).map((h) => h.tool.name)).toEqual(['mcp__a__one']);
    expect(searchIndexFor(tools('Sends an invoice.').slice(0, 1))).not.toBe(changed);
    const [one, two] = tools('Sends an invoice.');
    const newSchema = { ...two!, inputSchema: { type: 'object' } };
    expect(searchIndexFor([one!, newSchema])).not.toBe(searchIndexFor([one!, two!]));
    expect(searchIndexFor([]).size).toBe(0);
  });
});
