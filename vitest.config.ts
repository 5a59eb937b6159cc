// Vitest configuration: unit and integration tests sit beside the code they test.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['reference/**/*.test.ts', 'harness/**/*.test.ts', 'tools/**/*.test.ts', 'schemas/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default', './tools/summary-reporter.ts'],
  },
});
