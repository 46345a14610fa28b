import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

// The documentation suite: the API reference builds and covers every export, every guide
// example runs and shows what its page says, the runner of `npm run examples` behaves, and the
// repository's own rules (dependency rules, the rooms of src/mcp, lint findings) hold. Static
// checks of the repository and its docs, not of the library's behaviour, and a third of the
// CPU time the default suite had: run by `npm run test:docs` and by .ci/run, not by `npm test`.
export default defineConfig({
  test: {
    include: ['test/docs/**/*.test.ts', 'test/examples/**/*.test.ts', 'test/lint/**/*.test.ts'],
    setupFiles: ['test/support/isolate-home.ts', 'test/support/count-expects.ts'],
    reporters: ['default', new SummaryReporter()],
    maxWorkers: Math.max(2, availableParallelism() - 1),
    isolate: false, // as in vitest.config.ts: files share their worker's module graph
    unstubEnvs: true,
    testTimeout: 90_000,
    hookTimeout: 180_000,
  },
});
