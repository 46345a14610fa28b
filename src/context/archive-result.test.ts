import { describe, expect, it } from 'vitest';
import { normalizeToolReturn } from '../tools/index.js';
import {
  archiveToolResult,
  unarchivedResult,
  DEFAULT_ARCHIVE_PREVIEW_BYTES,
  DEFAULT_ARCHIVE_THRESHOLD_BYTES,
  MemoryArchiveStore,
} from './index.js';
import type { ArchiveToolResultOptions } from './index.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const PNG_B64 = PNG.toString('base64');

function options(
  store = new MemoryArchiveStore(),
  extra: Partial<ArchiveToolResultOptions> = {},
): ArchiveToolResultOptions {
  return {
    sessionId: 's1',
    toolName: 'search',
    callId: 'call_1',
    thresholdBytes: DEFAULT_ARCHIVE_THRESHOLD_BYTES,
    store,
    ...extra,
  };
}

describe('archiveToolResult thresholds', () => {
  it('uses 16 KiB and a 2 KiB preview by default', () => {
    expect(DEFAULT_ARCHIVE_THRESHOLD_BYTES).toBe(16384);
    expect(DEFAULT_ARCHIVE_PREVIEW_BYTES).toBe(2048);
  });

  it('returns a result exactly at the threshold unchanged, with no refs', async () => {
    const store = new MemoryArchiveStore();
    const result = { content: 'x'.repeat(16384), structured: { a: 1 } };
    const out = await archiveToolResult(result, options(store));
    expect(out.result).toBe(result);
    expect(out.refs).toEqual([]);
    expect(await store.list('s1')).toEqual([]);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const atLimit = 'é'.repeat(50); // 100 bytes
    expect(
      (await archiveToolResult({ content: atLimit }, options(undefined, { thresholdBytes: 100 })))
        .refs,
    ).toEqual([]);
    const over = `${atLimit}a`;
    expect(
      (await archiveToolResult({ content: over }, options(undefined, { thresholdBytes: 100 })))
        .refs,
    ).toHaveLength(1);
  });

  it('archives content one byte over the threshold whole, and shows a preview and a note', async () => {
    const store = new MemoryArchiveStore();
    const content = 'y'.repeat(16385);
    const { result, refs } = await archiveToolResult(
      content === '' ? { content } : { content },
      options(store),
    );
    expect(refs).toHaveLength(1);
    const ref = refs[0] ?? '';
    const item = await store.get('s1', ref);
    expect(item).toMatchObject({
      kind: 'text',
      mimeType: 'text/plain',
      text: content,
      bytes: 16385,
      toolName: 'search',
      callId: 'call_1',
      sessionId: 's1',
    });
    expect(result.content).toBe(
      `${'y'.repeat(2048)}\n[archived: ref=${ref}, 16385 bytes, text/plain. The first 2048 bytes are shown above. Read more with the context tool: {"ref":"${ref}","offset":2048}]`,
    );
  });

  it('marks JSON content as application/json', async () => {
    const store = new MemoryArchiveStore();
    const content = JSON.stringify({ rows: Array.from({ length: 3000 }, (_, i) => ({ i })) });
    const { refs, result } = await archiveToolResult({ content }, options(store));
    expect((await store.get('s1', refs[0] ?? ''))?.mimeType).toBe('application/json');
    expect(result.content).toContain('bytes, application/json.');
  });

  it('sniffs the type from the first and last non-space characters, without parsing', async () => {
    const store = new MemoryArchiveStore();
    const rows = JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ i })));
    const typeOf = async (content: string) => {
      const { refs } = await archiveToolResult({ content }, options(store));
      return (await store.get('s1', refs[0] ?? ''))?.mimeType;
    };
    expect(await typeOf(`\n  ${rows}\n`)).toBe('application/json');
    expect(await typeOf(`${rows} (truncated)`)).toBe('text/plain');
    expect(await typeOf(`{${rows.slice(1, -1)}]`)).toBe('text/plain');
  });

  it('cuts the preview on a character boundary', async () => {
    const store = new MemoryArchiveStore();
    const content = `a${'🙂'.repeat(100)}`; // 1 + 400 bytes
    const { result, refs } = await archiveToolResult(
      { content },
      options(store, { thresholdBytes: 10, previewBytes: 7 }),
    );
    expect(result.content.startsWith(`a🙂\n[archived: ref=${refs[0]}, 401 bytes`)).toBe(true);
    expect(result.content).toContain(`"offset":5}`);
    expect(result.content).not.toContain('\uFFFD');
  });

  it('shows no preview when previewBytes is 0', async () => {
    const { result, refs } = await archiveToolResult(
      { content: 'abcdef' },
      options(undefined, { thresholdBytes: 3, previewBytes: 0 }),
    );
    expect(result.content).toBe(
      `[archived: ref=${refs[0]}, 6 bytes, text/plain. Read more with the context tool: {"ref":"${refs[0]}","offset":0}]`,
    );
  });

  it('keeps isError, structured and media of an archived result', async () => {
    const media = [{ type: 'image' as const, data: PNG_B64, mimeType: 'image/png' }];
    const { result } = await archiveToolResult(
      { content: 'z'.repeat(100), isError: true, structured: 0, media },
      options(undefined, { thresholdBytes: 10 }),
    );
    expect(result).toMatchObject({ isError: true, structured: 0, media });
  });

  it.each([
    ['thresholdBytes', { thresholdBytes: -1 }],
    ['thresholdBytes', { thresholdBytes: 1.5 }],
    ['previewBytes', { previewBytes: Number.NaN }],
  ])('rejects a bad %s with INVALID_CONFIGURATION', async (name, extra) => {
    await expect(
      archiveToolResult({ content: 'x' }, options(undefined, extra)),
    ).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      message: expect.stringContaining(name),
    });
  });
});

describe('archiveToolResult and the whole result (item-07)', () => {
  const file = 'a line of the file\n'.repeat(1200); // 22,800 bytes

  it('pages the text and keeps the whole result, structuredContent included, as JSON', async () => {
    const store = new MemoryArchiveStore();
    const normalized = normalizeToolReturn(
      { content: [{ type: 'text', text: file }], structuredContent: { content: file } },
      'read',
    );
    const { result, refs } = await archiveToolResult(normalized, options(store));
    expect(refs).toHaveLength(2);
    const [text, whole] = await Promise.all(refs.map((r) => store.get('s1', r)));
    expect(text).toMatchObject({ kind: 'text', text: file });
    expect(whole).toMatchObject({ kind: 'text', mimeType: 'application/json' });
    expect(JSON.parse((whole as { text: string }).text)).toEqual({
      content: [{ type: 'text', text: file }],
      structuredContent: { content: file },
    });
    // the preview is the file's own text, not escaped JSON
    expect(result.content.startsWith('a line of the file\na line')).toBe(true);
    expect(result.content).toContain(`ref=${refs[1]}`);
    expect(result).not.toHaveProperty('whole');
  });

  it('keeps the text and leaves the whole out when the archive has no room for both', async () => {
    const store = new MemoryArchiveStore({ maxBytesPerSession: 60_000 });
    const normalized = normalizeToolReturn(
      { content: [{ type: 'text', text: file }], structuredContent: { content: file } },
      'read',
    );
    const { result, refs } = await archiveToolResult(normalized, options(store));
    expect(refs).toHaveLength(1);
    expect(await store.get('s1', refs[0]!)).toMatchObject({ kind: 'text', text: file });
    expect(result.content).not.toContain('the whole result');
    expect(result.content).toContain(`ref=${refs[0]}`);
  });

  it('keeps a small result as it is, without what only the archive would keep', async () => {
    const store = new MemoryArchiveStore();
    const normalized = normalizeToolReturn(
      { content: [{ type: 'text', text: 'hi' }], structuredContent: { content: 'hi' } },
      'read',
    );
    expect(normalized.whole).toBeDefined();
    const { result, refs } = await archiveToolResult(normalized, options(store));
    expect(refs).toEqual([]);
    expect(result).toEqual({ content: 'hi', structured: { content: 'hi' } });
    expect(await store.list('s1')).toEqual([]);
  });
});

describe('archiveToolResult blobs', () => {
  it('archives every blob as binary, notes it in the content, and keeps media', async () => {
    const store = new MemoryArchiveStore();
    const audio = Buffer.from('RIFF....WAVE').toString('base64');
    const normalized = normalizeToolReturn(
      {
        content: [
          { type: 'text', text: 'a chart and a clip' },
          { type: 'image', data: PNG_B64, mimeType: 'image/png' },
          { type: 'audio', data: audio, mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///r.bin', blob: PNG_B64 } },
        ],
      },
      'render',
    );
    const { result, refs } = await archiveToolResult(normalized, options(store));
    expect(refs).toHaveLength(3);
    const items = await Promise.all(refs.map((r) => store.get('s1', r)));
    expect(items).toMatchObject([
      { kind: 'binary', mimeType: 'image/png', bytes: PNG.length, data: PNG_B64 },
      { kind: 'binary', mimeType: 'audio/wav', bytes: 12, data: audio },
      { kind: 'binary', mimeType: 'application/octet-stream', bytes: PNG.length, data: PNG_B64 },
    ]);
    expect(result.content).toBe(
      [
        normalized.content,
        `[archived image/png, ${PNG.length} bytes: ref=${refs[0]}]`,
        `[archived audio/wav, 12 bytes: ref=${refs[1]}]`,
        `[archived application/octet-stream (file:///r.bin), ${PNG.length} bytes: ref=${refs[2]}]`,
      ].join('\n'),
    );
    expect(result.content).not.toContain(PNG_B64);
    expect(result.content).not.toContain(audio);
    expect('blobs' in result).toBe(false);
    expect(result.media).toEqual([{ type: 'image', data: PNG_B64, mimeType: 'image/png' }]);
  });

  it('archives large content and blobs together, text first', async () => {
    const store = new MemoryArchiveStore();
    const { result, refs } = await archiveToolResult(
      {
        content: 'q'.repeat(50),
        blobs: [{ kind: 'audio', mimeType: 'audio/ogg', data: PNG_B64 }],
      },
      options(store, { thresholdBytes: 20, previewBytes: 4 }),
    );
    expect(refs).toHaveLength(2);
    expect((await store.get('s1', refs[0] ?? ''))?.kind).toBe('text');
    expect(result.content.split('\n')).toEqual([
      'qqqq',
      expect.stringContaining(`[archived: ref=${refs[0]}, 50 bytes`),
      `[archived audio/ogg, ${PNG.length} bytes: ref=${refs[1]}]`,
    ]);
  });

  it('archives blobs of a small empty-content result', async () => {
    const { result, refs } = await archiveToolResult(
      { content: '', blobs: [{ kind: 'image', mimeType: 'image/png', data: PNG_B64 }] },
      options(),
    );
    expect(result).toEqual({
      content: `[archived image/png, ${PNG.length} bytes: ref=${refs[0]}]`,
    });
  });

  it('stores items in the given session only', async () => {
    const store = new MemoryArchiveStore();
    const { refs } = await archiveToolResult(
      { content: 'x', blobs: [{ kind: 'image', mimeType: 'image/png', data: PNG_B64 }] },
      options(store, { sessionId: 'mine' }),
    );
    expect(await store.get('mine', refs[0] ?? '')).toBeDefined();
    expect(await store.get('s1', refs[0] ?? '')).toBeUndefined();
  });
});

describe('unarchivedResult (the synchronous answer for what is not archived)', () => {
  it('gives the model-facing result of what archiveToolResult would keep, and nothing else', async () => {
    const cases = [
      { content: 'x'.repeat(100) },
      { content: 'x'.repeat(101) },
      { content: 'é'.repeat(50) }, // 100 bytes in 50 units
      { content: `${'é'.repeat(50)}a` },
      { content: '€'.repeat(33) }, // 99 bytes in 33 units: under the threshold only by bytes
      { content: '€'.repeat(34) },
      { content: '😀'.repeat(25) }, // 100 bytes in 50 units (surrogate pairs)
      { content: `${'😀'.repeat(25)}!` },
      { content: '\ud800'.repeat(34) }, // lone surrogates: 3 bytes each once encoded
      { content: 'ok', structured: { a: 1 }, whole: { content: [], structuredContent: { a: 1 } } },
      { content: 'ok', blobs: [{ kind: 'image' as const, mimeType: 'image/png', data: PNG_B64 }] },
      { content: 'ok', blobs: [] },
    ];
    for (const result of cases) {
      const archived = await archiveToolResult(
        result,
        options(new MemoryArchiveStore(), { thresholdBytes: 100 }),
      );
      const kept = unarchivedResult(result, 100);
      // the rule, counted independently: more than 100 UTF-8 bytes, or any blob, is archived
      const archives =
        Buffer.byteLength(result.content, 'utf8') > 100 || (result.blobs?.length ?? 0) > 0;
      expect(kept === undefined).toBe(archives);
      expect(archived.refs.length > 0).toBe(archives);
      if (kept) expect(kept).toEqual(archived.result);
    }
  });

  it('returns the result itself when it carries nothing only the archive keeps', () => {
    const result = { content: 'small', isError: true };
    expect(unarchivedResult(result, 100)).toBe(result);
  });

  it('refuses a threshold that is not a whole number >= 0', () => {
    expect(() => unarchivedResult({ content: 'x' }, -1)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });
});
