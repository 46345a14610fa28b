import { describe, expect, it } from 'vitest';
import { restrictedSyntax as findings } from '../support/lint.js';

// npm run lint refuses library code that decides on an error's message text (Standards:
// whether a call reached a server is decided from typed facts, never from message text).

const PLANTED = [
  'export function decide(err: Error, message: string): number {',
  "  if (err.message.includes('ECONNRESET')) return 1;",
  "  if (err.message.startsWith('timeout')) return 2;",
  '  if (/NODE_MODULE_VERSION/.test(err.message)) return 3;',
  '  if (message.match(/refused/)) return 4;',
  '  if (/gone/i.test(message)) return 5;',
  "  if ((err as { code?: string }).code === 'ERR_DLOPEN_FAILED') return 6;",
  '  return err.message.length;',
  '}',
  '',
].join('\n');

describe('no decisions on message text (npm run lint)', () => {
  it('flags each way of reading a message to decide, in library code, and nothing else', async () => {
    const found = await findings(PLANTED, 'src/util/planted-decision.ts');
    const because =
      'Decide from typed facts (an error code, a brand, details), never from message text';
    expect(found).toEqual([2, 3, 4, 5, 6].map((line) => `${line}: ${because}`));
  });

  it('leaves tests beside the code alone', async () => {
    expect(await findings(PLANTED, 'src/util/planted-decision.test.ts')).toEqual([]);
  });

  it('still refuses a default export in library code', async () => {
    const found = await findings('export default 1;\n', 'src/util/planted-default.ts');
    expect(found).toEqual(['1: Use named exports only.']);
  });
});
