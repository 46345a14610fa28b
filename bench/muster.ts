/**
 * The Muster the benchmarks measure: the built package in `dist/` (what users import, as
 * `npm run build` emits it: `tsc`'s output bundled per entry point; `tools/index` is an entry
 * of its own for these benchmarks), or the TypeScript sources when `BENCH_SOURCE=src`. The
 * sources run through tsx, whose transform wraps every named function in a `__name(...)` call
 * made each time a closure is created; the built package has none, so timing the sources
 * charges per-closure costs no user pays. `npm run bench` builds first. Types always come from
 * the sources.
 */
import { existsSync } from 'node:fs';
import type * as Root from '../src/index.js';
import type { ToolSearchIndex, runToolCall, validateJsonSchema } from '../src/tools/index.js';
import type * as Postgres from '../src/session/postgres.js';
import type * as Sqlite from '../src/session/sqlite.js';
import type * as Worker from '../src/worker/index.js';

/** Where the measured code comes from. */
export const BENCH_SOURCE: 'dist' | 'src' = process.env.BENCH_SOURCE === 'src' ? 'src' : 'dist';

function load<T>(path: string): Promise<T> {
  const url = new URL(`../${BENCH_SOURCE}/${path}.js`, import.meta.url);
  if (BENCH_SOURCE === 'dist' && !existsSync(url)) {
    throw new Error(`bench: ${url.pathname} is missing: run npm run build (or BENCH_SOURCE=src)`);
  }
  return import(url.href) as Promise<T>;
}

/** The package root's exports. */
export const muster = await load<typeof Root>('index');
/** What the benchmarks take from the tools folder's face: internal, measured directly. */
interface BenchTools {
  readonly runToolCall: typeof runToolCall;
  readonly ToolSearchIndex: typeof ToolSearchIndex;
  readonly validateJsonSchema: typeof validateJsonSchema;
}
/**
 * The tools folder's face (the pipeline, the search index, the JSON Schema validator):
 * internal, measured directly.
 */
export const musterTools = await load<BenchTools>('tools/index');
/** The durable stores' entry points, loaded when a benchmark needs them. */
export const loadStores = async (): Promise<{
  postgres: typeof Postgres;
  sqlite: typeof Sqlite;
}> => ({
  postgres: await load<typeof Postgres>('session/postgres'),
  sqlite: await load<typeof Sqlite>('session/sqlite'),
});
/** The worker entry point (`muster-agent/worker`), loaded when a benchmark needs it. */
export const loadWorker = (): Promise<typeof Worker> => load<typeof Worker>('worker/index');
