/**
 * docs/guide/errors.md explains every error code: one `### \`CODE\`` section per code of
 * `MUSTER_ERROR_CODES`, and no section for a code that does not exist. A code added to the
 * enum without a section fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MUSTER_ERROR_CODES } from '../../src/index.js';
import { ROOT } from '../package/built-package.js';

const page = readFileSync(join(ROOT, 'docs/guide/errors.md'), 'utf8');
const sections = [...page.matchAll(/^### `([A-Z_]+)`$/gm)].map((m) => m[1]);

describe('docs/guide/errors.md', () => {
  it('has one section per error code, in the order of MUSTER_ERROR_CODES', () => {
    expect(sections).toEqual([...MUSTER_ERROR_CODES]);
  });

  it('says what to do for each code', () => {
    const bodies = page.split(/^### /m).slice(1);
    for (const body of bodies) {
      const code = /^`([A-Z_]+)`/.exec(body)?.[1];
      expect(body.length, code).toBeGreaterThan(120);
      expect(body, code).toMatch(/\*\*Do:\*\*/);
    }
  });
});
