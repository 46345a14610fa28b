import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { js } from '../../bench/upstream/built-code.js';
import { applyPatches, patchedClient } from '../../bench/upstream/patched-client.js';
import { UPSTREAM_PATCHES, type UpstreamPatch } from '../../bench/upstream/patches.js';

function builtFile(dir: string, prefix: string): string {
  const name = readdirSync(join(dir, 'dist')).find(
    (n) => n.startsWith(prefix) && n.endsWith('.mjs'),
  );
  return readFileSync(join(dir, 'dist', name as string), 'utf8');
}

describe('the upstream patches of the official client (bench/upstream)', () => {
  it('writes built code with tabs for pairs of spaces', () => {
    expect(js`
a {
  b;
    \`c \${d}\`;
}
`).toBe('a {\n\tb;\n\t\t`c ${d}`;\n}\n');
    expect(
      () => js`
 odd
`,
    ).toThrow(/odd indentation/);
  });

  it('applies every patch, alone and all together, to a copy of the installed client', () => {
    const ids = new Set(UPSTREAM_PATCHES.map((p) => p.id));
    expect(ids.size).toBe(UPSTREAM_PATCHES.length);
    for (const patches of [...UPSTREAM_PATCHES.map((p) => [p]), UPSTREAM_PATCHES]) {
      const copy = patchedClient(patches);
      try {
        const text = builtFile(copy.dir, patches[0]?.file.split('*')[0] ?? '');
        for (const edit of patches
          .filter((p) => p.file === patches[0]?.file)
          .flatMap((p) => p.edits)) {
          expect(text).toContain(edit.replace);
        }
      } finally {
        copy.remove();
      }
      expect(existsSync(copy.dir)).toBe(false);
    }
  });

  it('fails loudly, naming the patch, when a find is not there exactly once', () => {
    const missing: UpstreamPatch = {
      id: 'nowhere',
      title: 'finds nothing',
      file: 'src-*.mjs',
      edits: [{ find: 'this text is in no build', replace: '' }],
      source: '',
    };
    const twice: UpstreamPatch = {
      ...missing,
      id: 'twice',
      edits: [{ find: 'function', replace: '' }],
    };
    const copy = patchedClient([]);
    try {
      expect(() => applyPatches(copy.dir, [missing])).toThrow(
        /patch 'nowhere' edit 1: found 0 times/,
      );
      expect(() => applyPatches(copy.dir, [twice])).toThrow(
        /patch 'twice' edit 1: found \d+ times/,
      );
      expect(() => applyPatches(copy.dir, [{ ...missing, file: 'nothing-*.mjs' }])).toThrow(
        /matches 0 files/,
      );
    } finally {
      copy.remove();
    }
  });
});
