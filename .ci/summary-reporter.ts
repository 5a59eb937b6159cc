// Vitest reporter that names the slowest test files, then ends the run with the plain line `N passed, N failed, N skipped`.
import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest test files the run names (where `npm test`'s time goes). */
const SLOWEST = 12;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (testModule.state() === 'failed' && testModule.children.size === 0) failed++;
    }
    const slowest = [...testModules].sort((a, b) => b.diagnostic().duration - a.diagnostic().duration).slice(0, SLOWEST);
    if (testModules.length > SLOWEST) {
      const lines = slowest.map((testModule) => `  ${(testModule.diagnostic().duration / 1000).toFixed(1).padStart(6)} s  ${testModule.relativeModuleId}`);
      process.stdout.write(`\nslowest test files (tests and hooks):\n${lines.join('\n')}\n`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
