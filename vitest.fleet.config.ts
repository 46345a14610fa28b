import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

// The fleet suite (worker processes killed with kill -9 and stopped with SIGSTOP at seeded
// moments, SPEC 15.5): run by `npm run test:fleet` and by .ci/run, not by `npm test`. Files run
// one at a time, and the whole suite is bounded to 5 minutes (each file's test sets its own
// bound under it). FLEET_SEED=<n> replays the moments of a failed run.
export default defineConfig({
  test: {
    include: ['test/fleet/**/*.test.ts'],
    setupFiles: ['test/support/isolate-home.ts', 'test/support/count-expects.ts'],
    reporters: ['default', new SummaryReporter()],
    isolate: false,
    testTimeout: 240_000,
    hookTimeout: 30_000,
    fileParallelism: false,
  },
});
