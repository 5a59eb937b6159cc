// Interleaved measurement rounds: several legs (routes of one or more servers) loaded in turn, ABBA order, medians.
import type { BenchChild } from './child-process.ts';
import { runLoad, type LoadResult, type LoadSpec } from './load.ts';
import type { RedisCpuProbe } from './redis-cpu.ts';
import { median, round } from './stats.ts';

/** One thing measured in every round: a load and the processes whose CPU time it is charged. */
export interface Leg {
  name: string;
  load: LoadSpec;
  /** The server processes serving this leg (a gateway and its upstream: both). */
  processes: Array<BenchChild<unknown>>;
  /** Charges Redis's CPU too. */
  redis?: RedisCpuProbe;
}

/** One measurement with what it cost the leg's processes (and Redis), in CPU microseconds per request. */
export interface RunResult extends LoadResult {
  serverCpuUs: number;
  redisCpuUs?: number;
  /** When the load ran, in CLOCK_MONOTONIC µs (the clock of V8's CPU profiles). */
  windowUs: [number, number];
}

const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** Medians over the repetitions of one leg. */
export interface RouteSummary {
  rps: number;
  p50: number;
  p99: number;
  serverCpuUs: number;
  redisCpuUs?: number;
  runs: RunResult[];
}

async function cpuMicros(processes: Array<BenchChild<unknown>>): Promise<number> {
  const usages = await Promise.all(processes.map((child) => child.usage()));
  return usages.reduce((sum, usage) => sum + usage.cpuMicros, 0);
}

async function measure(leg: Leg): Promise<RunResult> {
  const [before, redisBefore] = await Promise.all([cpuMicros(leg.processes), leg.redis?.read()]);
  const began = monotonicUs();
  const load = await runLoad(leg.load);
  const windowUs: [number, number] = [began, monotonicUs()];
  const [after, redisAfter] = await Promise.all([cpuMicros(leg.processes), leg.redis?.read()]);
  const requests = Math.max(1, load.ok + load.non2xx);
  const redisCpu = redisBefore === undefined || redisAfter === undefined ? undefined : round((redisAfter - redisBefore) / requests, 1);
  return { ...load, serverCpuUs: round((after - before) / requests, 1), ...(redisCpu === undefined ? {} : { redisCpuUs: redisCpu }), windowUs };
}

/** Medians of one leg's runs. */
export function summarize(runs: RunResult[]): RouteSummary {
  const redis = runs.flatMap((run) => (run.redisCpuUs === undefined ? [] : [run.redisCpuUs]));
  return {
    rps: median(runs.map((run) => run.rps)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    serverCpuUs: median(runs.map((run) => run.serverCpuUs)),
    ...(redis.length === 0 ? {} : { redisCpuUs: median(redis) }),
    runs,
  };
}

/** Median over the repetitions of `pick(a) / pick(b)` of the same repetition (0 when the divisor is 0). */
export function pairedRatio(a: RunResult[], b: RunResult[], pick: (run: RunResult) => number): number {
  const ratios = a.map((run, index) => {
    const other = b[index];
    return other === undefined || pick(other) === 0 ? 0 : pick(run) / pick(other);
  });
  return round(median(ratios), 3);
}

/** Median over the repetitions of `a`'s server CPU µs per request minus `b`'s of the same repetition. */
export function pairedCpuDifference(a: RunResult[], b: RunResult[]): number {
  return round(median(a.map((run, index) => run.serverCpuUs - (b[index]?.serverCpuUs ?? Number.NaN))), 1);
}


/**
 * Warms every leg up for `warmup` s, then runs `repetitions` rounds: legs in order, then reversed (A B C, C B A, …),
 * so a drift over the run weighs on every leg alike. Resolves each leg's runs, by leg name.
 */
export async function runRounds(
  legs: Leg[],
  options: { repetitions: number; warmup: number; label: string; log(line: string): void },
): Promise<Map<string, RunResult[]>> {
  if (options.warmup > 0) for (const leg of legs) await runLoad({ ...leg.load, duration: options.warmup });
  const runs = new Map<string, RunResult[]>(legs.map((leg) => [leg.name, []]));
  for (let rep = 0; rep < options.repetitions; rep++) {
    const order = rep % 2 === 0 ? legs : [...legs].reverse();
    for (const leg of order) runs.get(leg.name)?.push(await measure(leg));
    const line = legs.map((leg) => {
      const run = runs.get(leg.name)?.[rep];
      return run === undefined ? '' : `${leg.name} ${run.rps} req/s p99 ${run.p99} ms ${run.serverCpuUs} µs CPU/req`;
    });
    options.log(`  ${options.label} rep ${rep + 1}: ${line.join(', ')}`);
  }
  return runs;
}
