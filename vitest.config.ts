// Vitest configuration: unit and integration tests sit beside the code they test; workspace packages resolve to their TypeScript sources.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SpawningFirstSequencer } from './.ci/spawning-first-sequencer.ts';

/** Vite's default server conditions, with the workspace packages' source condition first (only `ssr` conditions: they also reach Node for externals). */
const conditions = ['credit402-source', 'module', 'node', 'development|production'];

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    include: ['reference/**/*.test.ts', 'tooling/**/*.test.ts', 'harness/**/*.test.ts', 'emulator/**/*.test.ts', 'schemas/**/*.test.ts', 'bench/**/*.test.ts', '.ci/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // At least three files at once, even on two cores: most test files wait on sockets and child processes, so vitest's
    // default (one worker per core but one) would leave a 2-core machine idle for half the run.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default', './.ci/summary-reporter.ts'],
    // The files that run whole programs first: on a fresh clone vitest would start them last (see the sequencer).
    sequence: { sequencer: SpawningFirstSequencer },
  },
});
