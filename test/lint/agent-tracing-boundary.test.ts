import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependencyCruise } from '../support/lint.js';
import type { Cruise } from '../support/lint.js';

// npm run lint refuses an import of src/agent/tracing from anywhere but the runtime's
// construction (src/agent/runtime-parts.ts): the loop sees only the run observer it declares
// (src/agent/run-observer.ts), so it has no tracing branches to grow back.

const ROOT = resolve(import.meta.dirname, '../..');
const RULE = 'agent-tracing-only-from-runtime';
const ruled = (cruise: Cruise) =>
  cruise.violations.filter((v) => v.startsWith(`${RULE}: `)).map((v) => v.slice(RULE.length + 2));

/** A copy of the repository's src whose run loop imports the tracing folder. */
const dir = mkdtempSync(join(tmpdir(), 'muster-tracing-boundary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('src/agent/tracing is imported only by the runtime (npm run lint)', () => {
  let real: Cruise;
  let planted: Cruise;
  beforeAll(async () => {
    cpSync(join(ROOT, 'src'), join(dir, 'src'), { recursive: true });
    for (const file of ['tsconfig.json', 'package.json']) cpSync(join(ROOT, file), join(dir, file));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const loop = join(dir, 'src/agent/run-loop.ts');
    writeFileSync(loop, `import './tracing/index.js';\n${readFileSync(loop, 'utf8')}`);
    [real, planted] = await Promise.all([dependencyCruise(ROOT), dependencyCruise(dir)]);
  }, 60_000);

  it('fails on a loop file that imports the tracing folder, under its rule', () => {
    expect(ruled(planted)).toEqual(['src/agent/run-loop.ts -> src/agent/tracing/index.ts']);
    expect(planted.errors).toBeGreaterThan(0);
  });

  it("passes the real tree, where the runtime's construction alone reaches the folder, through its index", () => {
    expect(ruled(real)).toEqual([]);
    const into = real.imports.filter(
      (i) => /-> src\/agent\/tracing\//.test(i) && !i.startsWith('src/agent/tracing/'),
    );
    expect(into).toEqual(['src/agent/runtime-parts.ts -> src/agent/tracing/index.ts']);
  });
});
