// Vitest's file order: the test files that run whole programs (the kit against self-test targets, the examples, the bench) first, so that the longest start early and no core waits idle at the end.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The folders and files whose tests start the kit, servers and emulators as child processes: the slowest files of the
 * suite (one to two and a half minutes each). Without vitest's cache of durations (a fresh clone, as in CI) its own
 * order puts the biggest files first, and these, small tables of runs, would start last and run alone at the end.
 */
export const SPAWNING_FIRST: readonly string[] = ['tooling/self-test/', 'examples/', 'bench/bench.test.ts'];

/** vitest's own order (cached durations, longest first; else the biggest files first), with {@link SPAWNING_FIRST} moved to the front. */
export class SpawningFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const spawns = (file: TestSpecification): boolean => SPAWNING_FIRST.some((prefix) => relative(root, file.moduleId).startsWith(prefix));
    return [...sorted.filter(spawns), ...sorted.filter((file) => !spawns(file))];
  }
}
