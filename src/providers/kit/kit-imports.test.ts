import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const KIT = fileURLToPath(new URL('.', import.meta.url));

describe('the provider kit', () => {
  it('imports no vendor package: only its own folder and the package', () => {
    const sources = readdirSync(KIT).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(sources.length).toBeGreaterThan(0);
    for (const file of sources) {
      const text = readFileSync(`${KIT}${file}`, 'utf8');
      // Static (`from '…'`), side-effect (`import '…'`) and dynamic (`import('…')`) imports.
      const specifiers = [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'([^']+)'/g)].map(
        (m) => m[1],
      );
      for (const specifier of specifiers) {
        expect({ file, specifier }).toEqual({ file, specifier: expect.stringMatching(/^\.\.?\//) });
      }
    }
  });
});
