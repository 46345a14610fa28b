import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// npm run lint refuses library code that decides on an error's message text (Standards:
// whether a call reached a server is decided from typed facts, never from message text).

const ROOT = resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: ROOT });

/** The rule messages ESLint gives `code` as if it were the file `path` of the repository. */
async function findings(code: string, path: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-syntax')
    .map((m) => `${m.line}: ${m.message.split(':')[0]}`);
}

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
