import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'studio-ui/src/**/*.test.ts'],
    // suites with their own scripts: npm run test:replicas, npm run test:faults,
    // npm run test:browser, npm run test:install, npm run test:fleet, npm run test:docs
    exclude: [
      ...configDefaults.exclude,
      'test/docs/**',
      'test/examples/**',
      'test/lint/**',
      'test/replicas/**',
      'test/fleet/**',
      'test/faults/**',
      'test/browser/**',
      'test/package/install.test.ts',
    ],
    setupFiles: ['test/support/isolate-home.ts', 'test/support/count-expects.ts'],
    reporters: ['default', new SummaryReporter()],
    // vitest's default is one worker fewer than the cores: one worker on a 2-core machine,
    // where most test time waits on child processes and sockets. Two workers halve the wall
    // time there without raising the CPU time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Test files share their worker's module graph instead of each starting a process of its
    // own and importing the sources again: a third of the suite's CPU time went to that. Files
    // keep to themselves: the setup files run before each file (a fresh MUSTER_HOME), nothing
    // mocks modules, and a file restores what it changes (timers, environment variables).
    isolate: false,
    unstubEnvs: true,
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});
