// Runs `count` async tasks with at most `concurrency` in flight, timing each; tasks never run twice.
import { performance } from 'node:perf_hooks';

/** The wall time of the whole batch and each task's latency, in milliseconds. */
export interface PoolTiming {
  seconds: number;
  latencies: number[];
  failures: string[];
}

/** Runs task(0 … count-1); a rejection is recorded as a failure and does not stop the others. */
export async function runPool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<PoolTiming> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      const begun = performance.now();
      try {
        await task(index);
        latencies.push(performance.now() - begun);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { seconds: (performance.now() - started) / 1000, latencies, failures };
}
