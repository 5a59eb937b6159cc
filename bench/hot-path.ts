// The gate's per-request cost for one configuration: ungated, gated (paid by clientId) and its floor, in interleaved rounds.
import { startBenchServer } from './bench-server.ts';
import { measureUnqueued, type UnqueuedComparison } from './unqueued-latency.ts';
import { startFloor, type FloorServer } from './floors/floor-server.ts';
import { floorOf } from './floors/floors.ts';
import type { BenchConfig, BenchOptions } from './options.ts';
import { FREE_ROUTE, fundClient, GATED_ROUTE, paymentHeader } from './payment.ts';
import { writeProfileRequests } from './profile-requests.ts';
import { openRedisCpuProbe } from './redis-cpu.ts';
import { pairedRatio, runRounds, summarize, type Leg, type RouteSummary, type RunResult } from './rounds.ts';
import { median, round } from './stats.ts';

/** The gated route against its floor, measured in the same rounds. */
export interface FloorComparison {
  floor: string;
  paid: RouteSummary;
  /** Median over the repetitions of gated rps / floor rps of the same repetition. */
  rpsRatio: number;
  /** Median over the repetitions of gated − floor server CPU µs per paid request. */
  addedCpuUs: number;
  /** Median over the repetitions of gated p99 / floor p99, both at saturation (where it mostly repeats the req/s ratio). */
  p99Ratio: number;
  /** Both loaded by one connection, one request at a time (no queue): the p99 the target judges. */
  unqueued: UnqueuedComparison;
  /** Non-2xx answers and connection errors of the floor, warm-up excluded. */
  failures: number;
  /** The floor's free `GET /free` (bare framework) against the reference's ungated route, in the same rounds; absent with --paid-only. */
  free?: FreeComparison;
}

/** The reference's ungated `GET /free` against the bare framework's (the floor's free route), in the same rounds. */
export interface FreeComparison {
  bare: RouteSummary;
  /** Median over the repetitions of ungated − bare server CPU µs per free request. */
  addedCpuUs: number;
  /** Median over the repetitions of ungated rps / bare rps. */
  rpsRatio: number;
}

/** What the bench found for one configuration. */
export interface HotPathResult {
  config: string;
  framework: string;
  store: string;
  /** Absent with --paid-only. */
  ungated?: RouteSummary;
  gated: RouteSummary;
  /** Median over the repetitions of gated rps / ungated rps of the same repetition; absent with --paid-only. */
  ratio?: number;
  /** The configuration's floor, when the bench has one and floors are on. */
  floor?: FloorComparison;
  /** The server's RSS (MB) after start and funding, and after all the load. */
  rssBeforeMB: number;
  rssAfterMB: number;
  /** Non-2xx responses and connection errors over every run of the reference, warm-up excluded. */
  failures: number;
}

const MB = 1024 * 1024;

const failuresOf = (runs: RunResult[]): number => runs.reduce((sum, run) => sum + run.non2xx + run.errors, 0);

/** Median over the repetitions of `a`'s server CPU µs per request minus `b`'s of the same repetition. */
function addedCpu(a: RunResult[], b: RunResult[]): number {
  return round(median(a.map((run, index) => run.serverCpuUs - (b[index]?.serverCpuUs ?? Number.NaN))), 1);
}

function compare(floor: string, unqueued: UnqueuedComparison, gated: RunResult[], paid: RunResult[], ungated?: RunResult[], bare?: RunResult[]): FloorComparison {
  return {
    floor,
    unqueued,
    paid: summarize(paid),
    rpsRatio: pairedRatio(gated, paid, (run) => run.rps),
    addedCpuUs: addedCpu(gated, paid),
    p99Ratio: pairedRatio(gated, paid, (run) => run.p99),
    failures: failuresOf([...paid, ...(bare ?? [])]),
    ...(ungated === undefined || bare === undefined ? {} : { free: { bare: summarize(bare), addedCpuUs: addedCpu(ungated, bare), rpsRatio: pairedRatio(ungated, bare, (run) => run.rps) } }),
  };
}

/** Measures `config`: fund one client, warm up every leg, then rounds of ungated, gated and the floor's paid route. */
export async function measureHotPath(
  config: BenchConfig,
  options: BenchOptions,
  context: { runId: string; stripeApiUrl: string; log(line: string): void },
): Promise<HotPathResult> {
  const floorDef = options.floors ? floorOf(config) : undefined;
  const [serverStart, floorStart] = await Promise.allSettled([
    startBenchServer(config, { runId: context.runId, stripeApiUrl: context.stripeApiUrl, cpuProfDir: options.cpuProfDir }),
    floorDef === undefined ? undefined : startFloor(floorDef, { runId: context.runId, cpuProfDir: options.cpuProfDir }),
  ]);
  const started = [serverStart, floorStart].flatMap((start) => (start.status === 'fulfilled' && start.value !== undefined ? [start.value] : []));
  try {
    if (serverStart.status === 'rejected') throw serverStart.reason;
    if (floorStart.status === 'rejected') throw floorStart.reason;
    const server = serverStart.value;
    const floor = floorStart.value;
    const redis = config.store === 'redis' ? await openRedisCpuProbe() : undefined;
    try {
      const clientId = await fundClient(server.url, context.stripeApiUrl);
      const base = { duration: options.duration, connections: options.connections };
      const gatedLeg: Leg = { name: 'gated', load: { ...base, url: `${server.url}${GATED_ROUTE}`, headers: paymentHeader({ clientId }) }, processes: [server.child], ...(redis ? { redis } : {}) };
      const legs: Leg[] = [gatedLeg];
      if (!options.paidOnly) legs.unshift({ name: 'ungated', load: { ...base, url: `${server.url}${FREE_ROUTE}` }, processes: [server.child], ...(redis ? { redis } : {}) });
      const paidFloorLeg = floor && floorLeg(floor, base, redis);
      if (paidFloorLeg) legs.push(paidFloorLeg);
      if (floor && !options.paidOnly) legs.push(floorFreeLeg(floor, base, redis));
      const before = await server.child.usage();
      const runs = await runRounds(legs, { repetitions: options.repetitions, warmup: options.warmup, label: config.name, log: context.log });
      const gated = runs.get('gated') ?? [];
      const unqueued = paidFloorLeg && (await measureUnqueued(gatedLeg, paidFloorLeg, { repetitions: options.repetitions, label: config.name, log: context.log }));
      const after = await server.child.usage();
      writeProfileRequests(options.cpuProfDir, config.name, { paid: runs.get('gated'), ungated: runs.get('ungated') });
      if (floor) writeProfileRequests(options.cpuProfDir, floor.name, { paid: runs.get(floor.name), ungated: runs.get(freeLegName(floor)) });
      const ungated = runs.get('ungated');
      return {
        config: config.name,
        framework: config.framework,
        store: config.store,
        ...(ungated === undefined ? {} : { ungated: summarize(ungated), ratio: pairedRatio(gated, ungated, (run) => run.rps) }),
        gated: summarize(gated),
        ...(floor && unqueued ? { floor: compare(floor.name, unqueued, gated, runs.get(floor.name) ?? [], ungated, runs.get(freeLegName(floor))) } : {}),
        rssBeforeMB: round(before.rss / MB, 1),
        rssAfterMB: round(after.rss / MB, 1),
        failures: failuresOf([...(ungated ?? []), ...gated]),
      };
    } finally {
      redis?.close();
    }
  } finally {
    await Promise.all(started.map((one) => one.close()));
  }
}

function floorLeg(floor: FloorServer, base: { duration: number; connections: number }, redis: Leg['redis']): Leg {
  return {
    name: floor.name,
    load: { ...base, url: `${floor.url}${GATED_ROUTE}`, headers: paymentHeader({ clientId: floor.clientId }) },
    processes: [floor.child],
    ...(redis ? { redis } : {}),
  };
}

const freeLegName = (floor: FloorServer): string => `${floor.name}-free`;

/** The floor's free route: the bare framework's cost of the request the reference's ungated leg makes. */
function floorFreeLeg(floor: FloorServer, base: { duration: number; connections: number }, redis: Leg['redis']): Leg {
  return { name: freeLegName(floor), load: { ...base, url: `${floor.url}${FREE_ROUTE}` }, processes: [floor.child], ...(redis ? { redis } : {}) };
}
