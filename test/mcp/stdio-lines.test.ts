import { describe, expect, it } from 'vitest';
import { BoundedLineReader } from '../../src/mcp/transports/line-reader.js';
import type { OversizedLine } from '../../src/mcp/transports/line-reader.js';
import { MessageHeadScanner } from '../../src/mcp/transports/message-head.js';

function read(max: number, chunks: (string | Buffer)[]) {
  const lines: string[] = [];
  const over: OversizedLine[] = [];
  const reader = new BoundedLineReader(
    max,
    (l) => lines.push(l),
    (o) => over.push(o),
  );
  for (const c of chunks) reader.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  return { lines, over };
}

function head(text: string, chunk = 3) {
  const scanner = new MessageHeadScanner();
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunk) scanner.push(bytes.subarray(i, i + chunk));
  return scanner.result();
}

describe('BoundedLineReader', () => {
  it('splits lines across chunks, drops CR and empty lines', () => {
    const { lines, over } = read(100, ['{"a":', '1}\r\n\n{"b"', ':2}\n{"c":3']);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(over).toEqual([]);
  });

  it('skips a line over the bound without keeping it, reports its head, and reads on', () => {
    const big = `{"result":{"text":"${'x'.repeat(500)}"},"jsonrpc":"2.0","id":42}`;
    const chunks = [big.slice(0, 20), big.slice(20, 300), `${big.slice(300)}\n{"id":1}\n`];
    const { lines, over } = read(64, chunks);
    expect(over).toEqual([
      { id: 42, hasMethod: false, batch: false, bytes: Buffer.byteLength(big) },
    ]);
    expect(lines).toEqual(['{"id":1}']);
  });

  it('a line of exactly the bound passes', () => {
    const line = `{"id":1,"x":"${'y'.repeat(50)}"}`;
    const { lines, over } = read(Buffer.byteLength(line), [`${line}\n`]);
    expect(lines).toEqual([line]);
    expect(over).toEqual([]);
  });
});

describe('MessageHeadScanner', () => {
  it('finds a top-level id wherever it is, not ids nested deeper', () => {
    expect(head('{"result":{"id":9,"content":[{"id":"x"}]},"jsonrpc":"2.0","id":7}')).toEqual({
      id: 7,
      hasMethod: false,
      batch: false,
    });
    expect(head('{ "id" : "probe-1" , "result" : {} }')).toMatchObject({ id: 'probe-1' });
  });

  it('is not fooled by keys and braces inside strings', () => {
    expect(head('{"result":{"text":"\\"id\\":5, } { \\\\"},"id":3}', 1)).toMatchObject({ id: 3 });
    expect(head('{"text":"\\"method\\":1","id":4}')).toEqual({
      id: 4,
      hasMethod: false,
      batch: false,
    });
  });

  it('tells requests and notifications from responses, and batches from objects', () => {
    expect(head('{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{}}')).toEqual({
      id: 5,
      hasMethod: true,
      batch: false,
    });
    expect(head('{"jsonrpc":"2.0","method":"notifications/message"}')).toEqual({
      hasMethod: true,
      batch: false,
    });
    expect(head('[{"id":1,"result":{}}]')).toEqual({ hasMethod: false, batch: true });
    expect(head('{"id":null,"error":{}}')).toEqual({ hasMethod: false, batch: false });
  });

  it('reads UTF-8 text byte by byte without confusion', () => {
    expect(head('{"result":{"text":"héllo ✓ 💡"},"id":11}', 1)).toMatchObject({ id: 11 });
  });
});
