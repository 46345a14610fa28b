import { deserializeMessage } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeMessageLine } from './message-decode.js';

/** What the client's own decoder does with a line: its message, or the error's class. */
function official(line: string): unknown {
  try {
    return { message: deserializeMessage(line) };
  } catch (error) {
    return { threw: (error as Error).constructor.name };
  }
}

function ours(line: string): unknown {
  try {
    return { message: decodeMessageLine(line) };
  } catch (error) {
    return { threw: (error as Error).constructor.name };
  }
}

const LINES = [
  '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}',
  '{"jsonrpc":"2.0","id":"a","result":{}}',
  '{"jsonrpc":"2.0","id":1.5,"result":{}}',
  '{"jsonrpc":"2.0","id":-9007199254740992,"result":{}}',
  '{"jsonrpc":"2.0","id":9007199254740991,"result":{}}',
  '{"jsonrpc":"2.0","id":1e300,"result":{}}',
  '{"jsonrpc":"2.0","id":null,"result":{}}',
  '{"jsonrpc":"2.0","result":{}}',
  '{"jsonrpc":"1.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"result":[]}',
  '{"jsonrpc":"2.0","id":1,"result":null}',
  '{"jsonrpc":"2.0","id":1,"result":{},"extra":1}',
  '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":7}}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom","extra":true}}',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
  '[{"jsonrpc":"2.0","id":1,"result":{}}]',
  '"text"',
  'not json',
  '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1}}}',
];

describe('decodeMessageLine', () => {
  it.each(LINES)('decodes %s as the client does', (line) => {
    expect(ours(line)).toEqual(official(line));
  });

  it('returns the parsed object itself for a plain result response', () => {
    const line = '{"jsonrpc":"2.0","id":7,"result":{"isError":false,"content":[]}}';
    expect(decodeMessageLine(line)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { isError: false, content: [] },
    });
  });

  it('agrees with the client on any JSON value', () => {
    const message = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0'),
        id: fc.oneof(fc.integer(), fc.string(), fc.double(), fc.constant(null)),
        result: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
        method: fc.string(),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(message, fc.jsonValue()), (value) => {
        const line = JSON.stringify(value);
        expect(ours(line)).toEqual(official(line));
      }),
      { numRuns: 500 },
    );
  });
});
