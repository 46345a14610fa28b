import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

// The browser suite (headless Chromium against the built studio): run by `npm run test:browser`
// and by .ci/run, not by `npm test`. One file at a time: each starts a studio, MCP servers
// and a browser.
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/support/browser-build.ts'],
    setupFiles: ['test/support/isolate-home.ts', 'test/support/count-expects.ts'],
    reporters: ['default', new SummaryReporter()],
    isolate: false, // as in vitest.config.ts: files share their worker's module graph
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
