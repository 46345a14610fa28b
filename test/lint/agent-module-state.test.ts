import { describe, expect, it } from 'vitest';
import { restrictedSyntax as findings } from '../support/lint.js';

// npm run lint refuses module-level let and var in src/agent: state there is shared by every
// agent of the process (a child's runtime was once handed to a constructor through one).

const PLANTED = [
  'let adopting: string | undefined;',
  'var counter = 0;',
  '/** A constant. */',
  'export const LIMIT = 3;',
  '/** A variable someone could write. */',
  'export let current = 1;',
  '/** Local lets are fine. */',
  'export function step(): number {',
  '  let n = counter + LIMIT + current;',
  '  n += 1;',
  '  return n + (adopting ? 1 : 0);',
  '}',
  '',
].join('\n');

describe('no module-level state in src/agent (npm run lint)', () => {
  const because = 'No module-level let or var in src/agent';

  it('flags top-level let and var, exported or not, and nothing else', async () => {
    expect(await findings(PLANTED, 'src/agent/planted-state.ts')).toEqual(
      [1, 2, 6].map((line) => `${line}: ${because}`),
    );
  });

  it('applies to src/agent only, and not to its tests', async () => {
    expect(await findings(PLANTED, 'src/util/planted-state.ts')).toEqual([]);
    expect(await findings(PLANTED, 'src/agent/planted-state.test.ts')).toEqual([]);
  });

  it('keeps the rules every library file has', async () => {
    const code =
      "export default 1;\nexport const f = (message: string) => message.includes('x');\n";
    expect(await findings(code, 'src/agent/planted-rules.ts')).toEqual([
      '1: Use named exports only.',
      '2: Decide from typed facts (an error code, a brand, details), never from message text',
    ]);
  });
});
