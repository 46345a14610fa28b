import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ToolExecutionContext } from '../tools/index.js';
import { archiveToolResult, ContextToolExecutor, MemoryArchiveStore } from './index.js';
import type { ArchiveStore, ContextPage } from './index.js';

function ctx(sessionId = 's1', maxResultBytes = 1_000_000): ToolExecutionContext {
  return {
    signal: new AbortController().signal,
    sessionId,
    runId: 'run_1',
    callId: 'call_ctx',
    iteration: 2,
    maxResultBytes,
    reportProgress: () => {},
  };
}

async function archiveText(store: ArchiveStore, content: string, sessionId = 's1') {
  const { refs } = await archiveToolResult(
    { content },
    { sessionId, toolName: 'dump', callId: 'call_1', thresholdBytes: 0, store },
  );
  return refs[0] ?? '';
}

async function call(
  tool: ContextToolExecutor,
  input: Record<string, unknown>,
  context = ctx(),
): Promise<ContextPage> {
  return JSON.parse(await tool.execute('context', input, context)) as ContextPage;
}

/** Pages through an item with nextOffset and returns every page. */
async function pageAll(
  tool: ContextToolExecutor,
  ref: string,
  length?: number,
  context = ctx(),
): Promise<ContextPage[]> {
  const pages: ContextPage[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = await call(tool, { ref, offset, ...(length ? { length } : {}) }, context);
    expect(page.offset).toBe(offset);
    pages.push(page);
    offset = page.nextOffset;
  }
  return pages;
}

describe('reading text', () => {
  it('pages a 100 KiB JSON payload back byte-exactly with the default length', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const rows = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row ${i}`, ok: true }));
    const content = JSON.stringify({ rows }).padEnd(102400, ' ');
    const ref = await archiveText(store, content);
    const pages = await pageAll(tool, ref);
    expect(pages).toHaveLength(7);
    expect(pages[0]).toMatchObject({
      ref,
      mimeType: 'application/json',
      offset: 0,
      length: 16384,
      totalBytes: 102400,
      nextOffset: 16384,
    });
    expect(pages.at(-1)).toMatchObject({ length: 102400 - 6 * 16384, nextOffset: null });
    expect(pages.map((p) => p.text).join('')).toBe(content);
  });

  it('never splits a multi-byte character and reassembles byte-exactly', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const alphabet = ['a', 'é', '中', '🙂', '👩‍👩‍👧', '\u0000', '"', '\\', '\n', '𝄞'];
    const content = Array.from({ length: 20000 }, (_, i) => alphabet[(i * 7) % 10]).join('');
    const ref = await archiveText(store, content);
    const short = await archiveText(store, content.slice(0, 3000));
    for (const [r, length, text] of [
      [short, 4, content.slice(0, 3000)],
      [short, 5, content.slice(0, 3000)],
      [short, 7, content.slice(0, 3000)],
      [ref, 1000, content],
      [ref, 4093, content],
      [ref, 65536, content],
    ] as const) {
      const pages = await pageAll(tool, r, length);
      for (const p of pages) {
        expect(p.length).toBeLessThanOrEqual(length);
        expect(Buffer.byteLength(p.text ?? '')).toBe(p.length);
        expect(p.text).not.toContain('\uFFFD');
      }
      const joined = Buffer.concat(pages.map((p) => Buffer.from(p.text ?? '', 'utf8')));
      expect(joined.equals(Buffer.from(text, 'utf8'))).toBe(true);
    }
  });

  it('ends before a character that offset + length falls inside', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const ref = await archiveText(store, 'ab🙂cd');
    expect(await call(tool, { ref, offset: 0, length: 4 })).toMatchObject({
      text: 'ab',
      length: 2,
      nextOffset: 2,
      totalBytes: 8,
    });
    expect(await call(tool, { ref, offset: 2, length: 4 })).toMatchObject({
      text: '🙂',
      nextOffset: 6,
    });
  });

  it('rejects an offset inside a character, naming where it starts', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const ref = await archiveText(store, 'ab🙂cd');
    for (const offset of [3, 4, 5]) {
      await expect(call(tool, { ref, offset })).rejects.toMatchObject({
        code: 'TOOL_ARGUMENTS_INVALID',
        message: expect.stringContaining('Use offset 2'),
      });
    }
  });

  it('rejects a length too short for the character at the offset', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const ref = await archiveText(store, '🙂');
    await expect(call(tool, { ref, length: 3 })).rejects.toMatchObject({
      code: 'TOOL_ARGUMENTS_INVALID',
      message: expect.stringContaining('at least 4 bytes'),
    });
  });

  it('returns an empty last page at the end, and rejects offsets past it', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const ref = await archiveText(store, 'hello');
    expect(await call(tool, { ref, offset: 5 })).toEqual({
      ref,
      mimeType: 'text/plain',
      offset: 5,
      length: 0,
      totalBytes: 5,
      nextOffset: null,
      text: '',
    });
    await expect(call(tool, { ref, offset: 6 })).rejects.toMatchObject({
      code: 'TOOL_ARGUMENTS_INVALID',
      message: expect.stringContaining('past the end'),
    });
  });
});

describe('reading binary', () => {
  it('pages binary data back byte-exactly as base64', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const bytes = randomBytes(100_001);
    const { refs } = await archiveToolResult(
      {
        content: 'shot',
        blobs: [{ kind: 'image', mimeType: 'image/png', data: bytes.toString('base64') }],
      },
      { sessionId: 's1', toolName: 'shot', callId: 'c', thresholdBytes: 16384, store },
    );
    const ref = refs[0] ?? '';
    for (const length of [7, undefined, 65536]) {
      const pages = await pageAll(tool, ref, length);
      for (const p of pages) expect(p).not.toHaveProperty('text');
      expect(pages[0]?.length).toBe(length ?? 16384);
      const joined = Buffer.concat(pages.map((p) => Buffer.from(p.data ?? '', 'base64')));
      expect(joined.equals(bytes)).toBe(true);
    }
    const small = await store.put({
      sessionId: 's1',
      kind: 'binary',
      mimeType: 'application/octet-stream',
      bytes: 300,
      data: bytes.subarray(0, 300).toString('base64'),
      toolName: 'shot',
      callId: 'c',
    });
    const single = await pageAll(tool, small.ref, 1);
    expect(single).toHaveLength(300);
    const joined = Buffer.concat(single.map((p) => Buffer.from(p.data ?? '', 'base64')));
    expect(joined.equals(bytes.subarray(0, 300))).toBe(true);
    expect(await call(tool, { ref, offset: 100_000, length: 10 })).toMatchObject({
      mimeType: 'image/png',
      offset: 100_000,
      length: 1,
      totalBytes: 100_001,
      nextOffset: null,
      data: bytes.subarray(100_000).toString('base64'),
    });
  });
});

describe('the result size limit', () => {
  it('shortens pages to fit maxResultBytes and still reassembles byte-exactly', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const content = '"\\\u0001é🙂x'.repeat(3000);
    const ref = await archiveText(store, content);
    const limited = ctx('s1', 4000);
    const pages: ContextPage[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const raw = await tool.execute('context', { ref, offset }, limited);
      expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(4000);
      const page = JSON.parse(raw) as ContextPage;
      pages.push(page);
      offset = page.nextOffset;
    }
    expect(pages.map((p) => p.text).join('')).toBe(content);
  });

  it('fails with TOOL_RESULT_TOO_LARGE when no page fits', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const ref = await archiveText(store, 'hello world');
    await expect(call(tool, { ref }, ctx('s1', 50))).rejects.toMatchObject({
      code: 'TOOL_RESULT_TOO_LARGE',
    });
  });

  it('reads pages directly with read()', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const ref = await archiveText(store, 'abcdef');
    expect(await tool.read('s1', { ref, offset: 2, length: 2 })).toMatchObject({
      text: 'cd',
      nextOffset: 4,
    });
  });
});
