import { describe, expect, it } from 'vitest';
import { McpError } from '../../../src/errors/index.js';
import { StderrRing, limitResponseBody } from '../../../src/mcp/transports/index.js';

const limit = { server: 'unit', maxResponseBytes: 10 };

function response(chunks: string[], headers: Record<string, string>): Response {
  const bytes = chunks.map((c) => new TextEncoder().encode(c));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = bytes.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
  return new Response(body, { headers });
}

async function read(r: Response): Promise<string | McpError> {
  try {
    return await r.text();
  } catch (error) {
    return error as McpError;
  }
}

describe('limitResponseBody', () => {
  it('refuses a declared length over the limit before reading', () => {
    const r = new Response('x'.repeat(11), { headers: { 'content-length': '11' } });
    expect(() => limitResponseBody(r, limit)).toThrow(McpError);
  });

  it('counts a whole body across chunks', async () => {
    const ok = limitResponseBody(response(['12345', '67890'], {}), limit);
    expect(await read(ok.response)).toBe('1234567890');
    await expect(ok.done).resolves.toBeUndefined();

    const big = limitResponseBody(response(['12345', '678901'], {}), limit);
    const error = await read(big.response);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: 'MCP_OPERATION_FAILED', details: { bytes: 11 } });
    await expect(big.done).rejects.toBe(error);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('counts an event stream per event (%s line ends)', async (_name, eol) => {
    const sse = { 'content-type': 'text/event-stream; charset=utf-8' };
    const event = `data:1234${eol}${eol}`; // 9 or 11 bytes, of which at most 9 count
    const chunks = Array.from({ length: 20 }, () => event);
    const ok = limitResponseBody(response(chunks, sse), limit);
    expect(await read(ok.response)).toBe(event.repeat(20));

    const split = limitResponseBody(
      response(['data:12', `34${eol}data:5678${eol}${eol}`], sse),
      limit,
    );
    expect(await read(split.response)).toMatchObject({ code: 'MCP_OPERATION_FAILED' });
  });

  it('counts a body built in code even when told the length is enforced', async () => {
    // a Response made in code may declare any length: only a network response is trusted
    const lying = new Response('12345678901', { headers: { 'content-length': '5' } });
    const limited = limitResponseBody(lying, { ...limit, lengthEnforced: true });
    expect(limited.done).toBeDefined();
    expect(await read(limited.response)).toMatchObject({ code: 'MCP_OPERATION_FAILED' });
  });

  it('does not compare the declared length of an event stream', async () => {
    const text = 'data:1\n\n'.repeat(5);
    const r = new Response(text, {
      headers: { 'content-type': 'text/event-stream', 'content-length': String(text.length) },
    });
    expect(await read(limitResponseBody(r, limit).response)).toBe(text);
  });
});

describe('StderrRing', () => {
  it('keeps the last bytes only', () => {
    const ring = new StderrRing(8);
    ring.push('hello ');
    ring.push('world');
    expect(ring.tail()).toBe('lo world');
    ring.push(Buffer.from('0123456789abc'));
    expect(ring.tail()).toBe('6789abc'.padStart(8, '5'));
    expect(ring.byteLength).toBe(8);
  });

  it('drops a character cut at the start of the window', () => {
    const ring = new StderrRing(4);
    ring.push('aé€'); // 1 + 2 + 3 bytes; the window starts inside "é"
    expect(ring.tail()).toBe('€');
  });

  it('keeps nothing with a zero limit', () => {
    const ring = new StderrRing(0);
    ring.push('text');
    expect(ring.tail()).toBe('');
  });
});
