import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

// The slow suites (several processes sharing a database, a database stopped mid-run): run by
// `npm run test:replicas` and by .ci/run, not by `npm test`.
export default defineConfig({
  test: {
    include: ['test/replicas/**/*.test.ts'],
    setupFiles: ['test/support/isolate-home.ts', 'test/support/count-expects.ts'],
    reporters: ['default', new SummaryReporter()],
    isolate: false, // as in vitest.config.ts: files share their worker's module graph
    testTimeout: 300_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
