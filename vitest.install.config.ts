import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

// The install suite: the packed packages installed offline in empty folders, from the npm
// cache that `npm ci` filled (test/package/install.test.ts, about 30 s). Run by
// `npm run test:install` and by .ci/run, not by `npm test`.
export default defineConfig({
  test: {
    include: ['test/package/install.test.ts'],
    setupFiles: ['test/support/isolate-home.ts', 'test/support/count-expects.ts'],
    reporters: ['default', new SummaryReporter()],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
