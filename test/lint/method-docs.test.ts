import { describe, expect, it } from 'vitest';
import { lintFindings } from '../support/lint.js';

// npm run lint requires TSDoc on the public methods (and getters) of exported classes, as on
// every exported function, class and type: the API reference (npm run docs:api) is built from it.

const planted = (doc: string) =>
  [
    '/** A planted class. */',
    'export class Planted {',
    `  ${doc}`,
    '  run(): number {',
    '    return this.#helper() + this.inner();',
    '  }',
    '',
    '  private inner(): number {',
    '    return 1;',
    '  }',
    '',
    '  #helper(): number {',
    '    return 2;',
    '  }',
    '}',
    '',
    'class Unexported {',
    '  run(): number {',
    '    return 3;',
    '  }',
    '}',
    '/** A planted export. */',
    'export const made = new Unexported().run();',
    '',
  ].join('\n');

const requireJsdoc = async (code: string) =>
  (await lintFindings(code, 'src/util/planted-class.ts', 'jsdoc/require-jsdoc')).map(
    (f) => f.split(':')[0],
  );

describe('TSDoc on public methods (npm run lint)', () => {
  it('fails when a public method of an exported class has no TSDoc', async () => {
    // line 4 is `run()`: its comment line above is blank
    expect(await requireJsdoc(planted(''))).toEqual(['4']);
  });

  it('passes once the method has TSDoc; private, # and unexported classes need none', async () => {
    expect(await requireJsdoc(planted('/** Runs once. */'))).toEqual([]);
  });

  it('a line comment is not TSDoc', async () => {
    expect(await requireJsdoc(planted('// runs once'))).toEqual(['4']);
  });
});
