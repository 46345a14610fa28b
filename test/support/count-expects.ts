import { afterEach, expect } from 'vitest';

// Records on each test how many `expect` calls it made, for the summary line of
// test/support/summary-reporter.ts: a suite made faster must not make fewer checks.

declare module 'vitest' {
  interface TaskMeta {
    /** How many `expect` calls the test made (`expect.getState().assertionCalls`). */
    expects?: number;
  }
}

afterEach((context) => {
  context.task.meta.expects = expect.getState().assertionCalls;
});
