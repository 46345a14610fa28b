import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';

const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Import time of the built package, and of `createAgent`, each in a fresh Node process. */
export interface ImportTimeResult {
  readonly importMs: Summary;
  readonly createAgentMs: Summary;
}

const PROBE = `
const t0 = performance.now();
const m = await import(process.argv[1]);
const t1 = performance.now();
m.createAgent({ tools: [], policy: { allow: ['*'] } });
const t2 = performance.now();
process.stdout.write(JSON.stringify([t1 - t0, t2 - t1]));
`;

/**
 * Measures `import('muster-agent')` and one `createAgent()` in `runs` fresh processes, from the
 * built `dist/` (run `npm run build` first); `undefined` when there is no build.
 */
export function measureImportTime(runs: number): ImportTimeResult | undefined {
  if (!existsSync(DIST)) return undefined;
  const imports: number[] = [];
  const creates: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, DIST], {
      encoding: 'utf8',
    });
    const [importMs, createMs] = JSON.parse(out) as [number, number];
    imports.push(importMs);
    creates.push(createMs);
  }
  return { importMs: summarize(imports), createAgentMs: summarize(creates) };
}
