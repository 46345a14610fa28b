import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

// The fault suite (misbehaving servers: crashes, hangs, resets, restarts, floods): run by
// `npm run test:faults` and by .ci/run, not by `npm test`. Files run one at a time so that
// the detection bounds are measured on a machine that is not also running the other files.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    setupFiles: ['test/support/isolate-home.ts', 'test/support/count-expects.ts'],
    reporters: ['default', new SummaryReporter()],
    isolate: false, // as in vitest.config.ts: files share their worker's module graph
    testTimeout: 60_000,
    hookTimeout: 30_000,
    fileParallelism: false,
  },
});
