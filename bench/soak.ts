// Sustained gated load on one server while its RSS is sampled: does memory grow with the request count?
import type { BenchChild } from './child-process.ts';
import { runLoad } from './load.ts';
import { round } from './stats.ts';

/** RSS over a soak run, in MB; growth is the last sample minus the one after warm-up. */
export interface SoakResult {
  config: string;
  seconds: number;
  requests: number;
  rps: number;
  p99: number;
  rssStartMB: number;
  rssEndMB: number;
  rssMaxMB: number;
  growthMB: number;
  heapStartMB: number;
  heapEndMB: number;
  /** [seconds since the start of the load, RSS MB]. */
  samples: Array<[number, number]>;
  failures: number;
}

const MB = 1024 * 1024;
const SAMPLE_EVERY_MS = 2_000;

/** Warms up for `warmup` s, then loads `url` for `seconds` with `headers`, sampling the child's RSS every 2 s. */
export async function soak(
  config: string,
  child: BenchChild<unknown>,
  spec: { url: string; headers: Record<string, string>; connections: number },
  seconds: number,
  warmup: number,
): Promise<SoakResult> {
  if (warmup > 0) await runLoad({ ...spec, duration: warmup });
  const start = await child.usage();
  const samples: Array<[number, number]> = [[0, round(start.rss / MB, 1)]];
  const began = Date.now();
  const timer = setInterval(() => {
    child.usage().then(
      (memory) => samples.push([round((Date.now() - began) / 1000, 1), round(memory.rss / MB, 1)]),
      () => {},
    );
  }, SAMPLE_EVERY_MS);
  const load = await runLoad({ ...spec, duration: seconds }).finally(() => clearInterval(timer));
  const end = await child.usage();
  samples.push([round((Date.now() - began) / 1000, 1), round(end.rss / MB, 1)]);
  return {
    config,
    seconds,
    requests: load.ok,
    rps: load.rps,
    p99: load.p99,
    rssStartMB: round(start.rss / MB, 1),
    rssEndMB: round(end.rss / MB, 1),
    rssMaxMB: Math.max(...samples.map(([, rss]) => rss)),
    growthMB: round((end.rss - start.rss) / MB, 1),
    heapStartMB: round(start.heapUsed / MB, 1),
    heapEndMB: round(end.heapUsed / MB, 1),
    samples,
    failures: load.non2xx + load.errors,
  };
}
