import { describe, expect, it } from 'vitest';
import { mcpContentText, mcpTextOf } from '../../src/mcp/index.js';

describe('mcpContentText', () => {
  it('gives the text of text parts and resource contents, a placeholder for the rest', () => {
    expect(mcpContentText({ type: 'text', text: 'hi' })).toBe('hi');
    expect(mcpContentText({ uri: 'a://b', text: 'doc' })).toBe('doc');
    expect(mcpContentText({ type: 'image', data: 'xx', mimeType: 'image/png' })).toBe(
      '[image omitted]',
    );
    expect(mcpContentText({ uri: 'a://b', blob: 'xx', mimeType: 'application/pdf' })).toBe(
      '[binary application/pdf omitted]',
    );
    expect(mcpTextOf({ type: 'resource_link', text: 'not text' })).toBeUndefined();
  });
});
