// Vitest configuration: unit and integration tests sit beside the code they test; workspace packages resolve to their TypeScript sources.
import { defineConfig } from 'vitest/config';

/** Vite's default server conditions, with the workspace packages' source condition first (only `ssr` conditions: they also reach Node for externals). */
const conditions = ['credit402-source', 'module', 'node', 'development|production'];

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    include: ['reference/**/*.test.ts', 'tooling/**/*.test.ts', 'harness/**/*.test.ts', 'emulator/**/*.test.ts', 'schemas/**/*.test.ts', 'bench/**/*.test.ts', '.ci/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default', './.ci/summary-reporter.ts'],
  },
});
