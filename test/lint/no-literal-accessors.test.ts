import { describe, expect, it } from 'vitest';
import { restrictedSyntax as findings } from '../support/lint.js';

// npm run lint refuses getters and setters in object literals in src/: V8 gives such an
// object a hidden class of its own in old space, which kept every finished run alive until a
// full GC (docs/performance.md, "What kept every run alive").

const PLANTED = [
  '/** A claim. */',
  'export function claim(run: object): object {',
  '  let lost: Error | undefined;',
  '  return {',
  '    get lostReason() {',
  '      return lost;',
  '    },',
  '    set lostReason(e: Error | undefined) {',
  '      lost = e;',
  '    },',
  '    run,',
  '    method() {',
  '      return run;',
  '    },',
  '  };',
  '}',
  '',
  '/** A class keeps its getter on the prototype. */',
  'export class Claim {',
  '  #lost: Error | undefined;',
  '  /** Why the lease was lost. */',
  '  get lostReason(): Error | undefined {',
  '    return this.#lost;',
  '  }',
  '}',
  '',
].join('\n');

describe('no getters or setters in object literals in src/ (npm run lint)', () => {
  it('flags a literal getter and setter, and no method, data property or class getter', async () => {
    expect(await findings(PLANTED, 'src/agent/planted-claim.ts')).toEqual([
      '5: No getters in object literals',
      '8: No setters in object literals',
    ]);
    expect(await findings(PLANTED, 'src/mcp/planted-claim.ts')).toEqual([
      '5: No getters in object literals',
      '8: No setters in object literals',
    ]);
  });

  it('leaves tests alone', async () => {
    expect(await findings(PLANTED, 'src/agent/planted-claim.test.ts')).toEqual([]);
  });
});
