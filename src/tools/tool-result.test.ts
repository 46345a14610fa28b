import { describe, expect, it } from 'vitest';
import { ToolError } from '../errors/index.js';
import { errorResult, isCallToolResult, normalizeToolReturn } from './index.js';
import type { ToolReturn } from './index.js';

/** 'hello' in base64: 5 bytes, one pad character. */
const HELLO_B64 = Buffer.from('hello').toString('base64');
/** Six bytes, no padding. */
const SIX_B64 = Buffer.from([1, 2, 3, 4, 5, 6]).toString('base64');

function projection(content: string): { content: unknown[]; structuredContent?: unknown } {
  return JSON.parse(content) as { content: unknown[]; structuredContent?: unknown };
}

describe('normalizeToolReturn', () => {
  it('takes a string as the content', () => {
    expect(normalizeToolReturn('done', 't')).toEqual({ content: 'done' });
    expect(normalizeToolReturn('', 't')).toEqual({ content: '' });
  });

  it('keeps the fields of a ToolResult and drops empty or false ones', () => {
    const media = [{ type: 'image' as const, data: HELLO_B64, mimeType: 'image/png' }];
    expect(
      normalizeToolReturn({ content: 'x', isError: true, structured: { a: 1 }, media }, 't'),
    ).toEqual({ content: 'x', isError: true, structured: { a: 1 }, media });
    expect(normalizeToolReturn({ content: 'x', isError: false, media: [] }, 't')).toEqual({
      content: 'x',
    });
  });

  it('keeps scalar structured output of a ToolResult', () => {
    for (const structured of [0, false, '', null]) {
      expect(normalizeToolReturn({ content: 'x', structured }, 't')).toEqual({
        content: 'x',
        structured,
      });
    }
  });

  it('joins the text of a text-only CallToolResult', () => {
    const result = normalizeToolReturn(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
      't',
    );
    expect(result).toEqual({ content: 'first\n\nsecond' });
  });

  it('keeps isError of a CallToolResult', () => {
    expect(
      normalizeToolReturn({ content: [{ type: 'text', text: 'bad' }], isError: true }, 't'),
    ).toEqual({ content: 'bad', isError: true });
    expect(
      normalizeToolReturn({ content: [{ type: 'text', text: 'ok' }], isError: false }, 't'),
    ).toEqual({ content: 'ok' });
  });

  it('forwards images as media and projects them without their data', () => {
    const result = normalizeToolReturn(
      {
        content: [
          { type: 'text', text: 'a chart' },
          { type: 'image', data: HELLO_B64, mimeType: 'image/png' },
          { type: 'image', data: SIX_B64, mimeType: 'image/jpeg' },
        ],
      },
      't',
    );
    expect(result.media).toEqual([
      { type: 'image', data: HELLO_B64, mimeType: 'image/png' },
      { type: 'image', data: SIX_B64, mimeType: 'image/jpeg' },
    ]);
    expect(result.content).not.toContain(HELLO_B64);
    expect(projection(result.content)).toEqual({
      content: [
        { type: 'text', text: 'a chart' },
        { type: 'image', mimeType: 'image/png', bytes: 5 },
        { type: 'image', mimeType: 'image/jpeg', bytes: 6 },
      ],
    });
  });

  it('projects audio as metadata only', () => {
    const data = Buffer.from('abcd').toString('base64');
    const result = normalizeToolReturn(
      { content: [{ type: 'audio', data, mimeType: 'audio/wav' }] },
      't',
    );
    expect(result.media).toBeUndefined();
    expect(result.content).not.toContain(data);
    expect(projection(result.content)).toEqual({
      content: [{ type: 'audio', mimeType: 'audio/wav', bytes: 4 }],
    });
  });

  it('keeps resource links and the metadata of embedded resources', () => {
    const blob = Buffer.from('binary!').toString('base64');
    const result = normalizeToolReturn(
      {
        content: [
          {
            type: 'resource_link',
            uri: 'file:///a.txt',
            name: 'a.txt',
            title: 'A',
            description: 'the a file',
            mimeType: 'text/plain',
            size: 12,
            _meta: { secret: 'not projected' },
          },
          {
            type: 'resource',
            resource: { uri: 'file:///b.md', mimeType: 'text/markdown', text: '# B' },
          },
          { type: 'resource', resource: { uri: 'file:///c.bin', blob } },
        ],
      },
      't',
    );
    expect(result.media).toBeUndefined();
    expect(result.content).not.toContain(blob);
    expect(projection(result.content)).toEqual({
      content: [
        {
          type: 'resource_link',
          uri: 'file:///a.txt',
          name: 'a.txt',
          title: 'A',
          description: 'the a file',
          mimeType: 'text/plain',
          size: 12,
        },
        {
          type: 'resource',
          resource: { uri: 'file:///b.md', mimeType: 'text/markdown', text: '# B' },
        },
        { type: 'resource', resource: { uri: 'file:///c.bin', bytes: 7 } },
      ],
    });
  });

  it('keeps unknown block types by their type only', () => {
    const result = normalizeToolReturn({ content: [{ type: 'hologram', data: 'zzz' }] }, 't');
    expect(projection(result.content)).toEqual({ content: [{ type: 'hologram' }] });
  });

  it.each([
    ['an object', { temperature: 21, unit: 'C' }],
    ['zero', 0],
    ['false', false],
    ['a string', 'x'],
    ['an empty string', ''],
    ['null', null],
    ['an array', [1, 2]],
  ])('keeps structuredContent that is %s, in the projection too', (_label, structured) => {
    const result = normalizeToolReturn(
      { content: [{ type: 'text', text: 'weather' }], structuredContent: structured },
      't',
    );
    expect(result.structured).toEqual(structured);
    expect('structured' in result).toBe(true);
    expect(projection(result.content)).toEqual({
      content: [{ type: 'text', text: 'weather' }],
      structuredContent: structured,
    });
  });

  describe('item-07: the model reads structured data once', () => {
    const file = `# Orders\n${'line of the file, "quoted" and \\ escaped\n'.repeat(250)}`;

    it('gives the text alone when structuredContent holds the same text (server-filesystem)', () => {
      const result = normalizeToolReturn(
        { content: [{ type: 'text', text: file }], structuredContent: { content: file } },
        't',
      );
      expect(result.content).toBe(file);
      expect(result.structured).toEqual({ content: file });
      expect(result.whole).toEqual({
        content: [{ type: 'text', text: file }],
        structuredContent: { content: file },
      });
    });

    it('gives the text alone when a text block is the JSON of structuredContent', () => {
      const structured = { temperature: 21.5, unit: 'C', tags: ['a', 'b'], note: null };
      const text = JSON.stringify(structured, null, 2);
      const result = normalizeToolReturn(
        { content: [{ type: 'text', text }], structuredContent: structured },
        't',
      );
      expect(result.content).toBe(text);
      expect(result.whole?.structuredContent).toEqual(structured);
    });

    it('shows a value holding a number, a boolean or a string that is not a whole block', () => {
      const text = 'test 1 failed: expected true\n';
      for (const structured of [
        // a shell tool: the exit code and the timeout are not in the text as values
        { stdout: text, stderr: '', exitCode: 1, timedOut: true },
        { stdout: text, failed: true },
        // a part of the text is not the text
        { stdout: text, first: 'test 1' },
        // no string at all: nothing shows the text is about this value
        { a: 1, b: 2 },
      ]) {
        const result = normalizeToolReturn(
          { content: [{ type: 'text', text }], structuredContent: structured },
          't',
        );
        expect(projection(result.content)).toEqual({
          content: [{ type: 'text', text }],
          structuredContent: structured,
        });
        expect(result.whole).toBeUndefined();
      }
    });

    it('matches each string to a whole block, up to 64 of them', () => {
      const rows = Array.from({ length: 65 }, (_, i) => `row ${i}`);
      const blocks = rows.map((text) => ({ type: 'text', text }));
      const carried = normalizeToolReturn(
        {
          content: blocks.slice(0, 64),
          structuredContent: { rows: rows.slice(0, 64), note: null },
        },
        't',
      );
      expect(carried.content).toBe(rows.slice(0, 64).join('\n\n'));
      // more values than are matched one by one: shown, not guessed
      const shown = normalizeToolReturn({ content: blocks, structuredContent: { rows } }, 't');
      expect(projection(shown.content).structuredContent).toEqual({ rows });
    });

    it('leaves a carried structuredContent out of the JSON projection of mixed content', () => {
      const link = { type: 'resource_link', uri: 'file:///orders.md', name: 'orders.md' };
      const result = normalizeToolReturn(
        {
          content: [{ type: 'text', text: 'orders.md: 3 open' }, link],
          structuredContent: { summary: 'orders.md: 3 open' },
        },
        't',
      );
      expect(projection(result.content)).toEqual({
        content: [{ type: 'text', text: 'orders.md: 3 open' }, link],
      });
      expect(result.whole).toEqual({
        content: [{ type: 'text', text: 'orders.md: 3 open' }, link],
        structuredContent: { summary: 'orders.md: 3 open' },
      });
    });
  });

  it('handles an empty CallToolResult', () => {
    expect(normalizeToolReturn({ content: [] }, 't')).toEqual({ content: '' });
    expect(isCallToolResult({ content: [] })).toBe(true);
    expect(isCallToolResult({ content: 'x' })).toBe(false);
    expect(isCallToolResult(null)).toBe(false);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['a boolean', true],
    ['an object without content', { text: 'x' }],
    ['an object with non-string content', { content: 5 }],
  ])('rejects %s with TOOL_EXECUTION_FAILED', (_label, value) => {
    let err: unknown;
    try {
      normalizeToolReturn(value as unknown as ToolReturn, 'weather');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ToolError);
    expect(err).toMatchObject({ code: 'TOOL_EXECUTION_FAILED', toolName: 'weather' });
    expect((err as Error).message).toContain("'weather'");
  });
});

describe('errorResult', () => {
  it('renders the code and message as an error result', () => {
    expect(errorResult('TOOL_DENIED', 'not allowed')).toEqual({
      content: 'Error [TOOL_DENIED]: not allowed',
      isError: true,
    });
  });
});

describe('normalizeToolReturn blobs', () => {
  it('keeps the data of images, audio and embedded binary resources as blobs', () => {
    const audio = Buffer.from('abcd').toString('base64');
    const blob = Buffer.from('binary!').toString('base64');
    const result = normalizeToolReturn(
      {
        content: [
          { type: 'text', text: 'mixed' },
          { type: 'image', data: HELLO_B64, mimeType: 'image/png' },
          { type: 'audio', data: audio, mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///c.bin', blob } },
          {
            type: 'resource',
            resource: { uri: 'file:///d.pdf', mimeType: 'application/pdf', blob: SIX_B64 },
          },
          { type: 'resource', resource: { uri: 'file:///b.md', text: '# B' } },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
        ],
      },
      't',
    );
    expect(result.blobs).toEqual([
      { kind: 'image', mimeType: 'image/png', data: HELLO_B64 },
      { kind: 'audio', mimeType: 'audio/wav', data: audio },
      {
        kind: 'resource',
        mimeType: 'application/octet-stream',
        data: blob,
        uri: 'file:///c.bin',
      },
      { kind: 'resource', mimeType: 'application/pdf', data: SIX_B64, uri: 'file:///d.pdf' },
    ]);
    expect(result.media).toEqual([{ type: 'image', data: HELLO_B64, mimeType: 'image/png' }]);
    for (const data of [HELLO_B64, audio, blob, SIX_B64])
      expect(result.content).not.toContain(data);
  });

  it('adds no blobs when there is no binary data', () => {
    const result = normalizeToolReturn(
      {
        content: [
          { type: 'text', text: 'x' },
          { type: 'resource', resource: { uri: 'file:///b.md', text: '# B' } },
          { type: 'image', mimeType: 'image/png' },
        ],
      },
      't',
    );
    expect('blobs' in result).toBe(false);
  });

  it('keeps well-formed blobs of a ToolResult (a normalized result passes through again)', () => {
    const first = normalizeToolReturn(
      { content: [{ type: 'audio', data: HELLO_B64, mimeType: 'audio/ogg' }] },
      't',
    );
    const again = normalizeToolReturn({ ...first, content: 'rewritten' }, 't');
    expect(again).toEqual({
      content: 'rewritten',
      blobs: [{ kind: 'audio', mimeType: 'audio/ogg', data: HELLO_B64 }],
    });
    expect('blobs' in normalizeToolReturn({ content: 'x', blobs: [] } as ToolReturn, 't')).toBe(
      false,
    );
  });

  it.each([
    ['not an array', 'nope'],
    ['a blob with an unknown kind', [{ kind: 'video', mimeType: 'video/mp4', data: 'AA==' }]],
    ['a blob without data', [{ kind: 'image', mimeType: 'image/png' }]],
    ['a blob with a non-string uri', [{ kind: 'resource', mimeType: 'x', data: '', uri: 1 }]],
  ])('rejects a ToolResult whose blobs are %s', (_label, blobs) => {
    expect(() =>
      normalizeToolReturn({ content: 'x', blobs } as unknown as ToolReturn, 'shot'),
    ).toThrow(expect.objectContaining({ code: 'TOOL_EXECUTION_FAILED', toolName: 'shot' }));
  });
});
