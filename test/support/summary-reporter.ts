import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints closing lines, `tests: N passed, N failed, N skipped` and `expect calls: N`, after
 * the default reporter's output, so that CI logs carry plain counts that any reader can check
 * (the second from test/support/count-expects.ts, a setup file of every suite).
 */
export class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let expects = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        expects += test.meta().expects ?? 0;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    process.stdout.write(`expect calls: ${expects}\n`);
  }
}
