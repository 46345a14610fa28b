import { describe, expect, it } from 'vitest';
import { normalizeToolReturn, resultBytes } from './index.js';

/** 'hello' in base64: 5 bytes, one pad character. */
const HELLO_B64 = Buffer.from('hello').toString('base64');
const base64 = (bytes: number): string => Buffer.alloc(bytes, 7).toString('base64');

describe('resultBytes', () => {
  it('counts the UTF-8 bytes of the content', () => {
    expect(resultBytes({ content: '' })).toBe(0);
    expect(resultBytes({ content: 'abc' })).toBe(3);
    expect(resultBytes({ content: 'é' })).toBe(2);
    expect(resultBytes({ content: '🙂' })).toBe(4);
  });

  it('adds the inline data of media, and nothing for referenced media', () => {
    expect(
      resultBytes({
        content: 'ab',
        media: [
          { type: 'image', data: HELLO_B64, mimeType: 'image/png' },
          { type: 'image', url: 'https://example.com/x.png', mimeType: 'image/png' },
        ],
      }),
    ).toBe(2 + HELLO_B64.length);
  });

  it('counts the data of MCP audio and of embedded binary resources', () => {
    const audio = base64(300 * 1024);
    const blob = base64(2000);
    const withAudio = normalizeToolReturn(
      { content: [{ type: 'audio', data: audio, mimeType: 'audio/wav' }] },
      't',
    );
    expect(resultBytes(withAudio)).toBe(Buffer.byteLength(withAudio.content) + audio.length);
    const withBlob = normalizeToolReturn(
      { content: [{ type: 'resource', resource: { uri: 'file:///a.bin', blob } }] },
      't',
    );
    expect(resultBytes(withBlob)).toBe(Buffer.byteLength(withBlob.content) + blob.length);
  });

  it('counts an MCP image once, though it is both media and a blob', () => {
    const image = base64(900);
    const result = normalizeToolReturn(
      { content: [{ type: 'image', data: image, mimeType: 'image/png' }] },
      't',
    );
    expect(result.media).toHaveLength(1);
    expect(result.blobs).toHaveLength(1);
    expect(resultBytes(result)).toBe(Buffer.byteLength(result.content) + image.length);
  });

  it('counts embedded resource text, which the content carries', () => {
    const text = 'x'.repeat(5000);
    const result = normalizeToolReturn(
      { content: [{ type: 'resource', resource: { uri: 'file:///a.md', text } }] },
      't',
    );
    expect(resultBytes(result)).toBeGreaterThan(5000);
    expect(resultBytes(result)).toBe(Buffer.byteLength(result.content));
  });

  it('counts structured output, once', () => {
    const structured = { rows: ['é'.repeat(1000)] };
    const json = JSON.stringify(structured);
    expect(resultBytes({ content: 'ok', structured })).toBe(2 + Buffer.byteLength(json));
    // the content already is the JSON: the same bytes are not counted twice
    expect(resultBytes({ content: json, structured })).toBe(Buffer.byteLength(json));
    // the projection of an MCP result embeds its structuredContent
    const projected = normalizeToolReturn(
      { content: [{ type: 'text', text: 'a' }], structuredContent: structured },
      't',
    );
    expect(resultBytes(projected)).toBe(Buffer.byteLength(projected.content));
  });
});
