// The gate's per-request cost for one configuration: ungated vs gated (paid by clientId), interleaved repetitions.
import { startBenchServer, type BenchServer } from './bench-server.ts';
import { runLoad, type LoadResult, type LoadSpec } from './load.ts';
import type { BenchConfig, BenchOptions } from './options.ts';
import { FREE_ROUTE, fundClient, GATED_ROUTE, paymentHeader } from './payment.ts';
import { openRedisCpuProbe, type RedisCpuProbe } from './redis-cpu.ts';
import { median, round } from './stats.ts';

/** One measurement with what it cost the server process (and Redis), in CPU microseconds per request. */
interface RunResult extends LoadResult {
  serverCpuUs: number;
  redisCpuUs?: number;
}

/** Medians over the repetitions of one route. */
export interface RouteSummary {
  rps: number;
  p50: number;
  p99: number;
  serverCpuUs: number;
  redisCpuUs?: number;
  runs: RunResult[];
}

/** What the bench found for one configuration. */
export interface HotPathResult {
  config: string;
  framework: string;
  store: string;
  ungated: RouteSummary;
  gated: RouteSummary;
  /** Median over the repetitions of gated rps / ungated rps of the same repetition. */
  ratio: number;
  /** The server's RSS (MB) after start and funding, and after all the load. */
  rssBeforeMB: number;
  rssAfterMB: number;
  /** Non-2xx responses and connection errors over every run, warm-up excluded. */
  failures: number;
}

const MB = 1024 * 1024;

function summarize(runs: RunResult[]): RouteSummary {
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

async function measure(server: BenchServer, spec: LoadSpec, redis: RedisCpuProbe | undefined): Promise<RunResult> {
  const [before, redisBefore] = await Promise.all([server.child.usage(), redis?.read()]);
  const load = await runLoad(spec);
  const [after, redisAfter] = await Promise.all([server.child.usage(), redis?.read()]);
  const requests = Math.max(1, load.ok + load.non2xx);
  const redisCpu = redisBefore === undefined || redisAfter === undefined ? undefined : round((redisAfter - redisBefore) / requests, 1);
  return {
    ...load,
    serverCpuUs: round((after.cpuMicros - before.cpuMicros) / requests, 1),
    ...(redisCpu === undefined ? {} : { redisCpuUs: redisCpu }),
  };
}

/** Measures `config`: fund one client, warm up both routes, then alternate ungated and gated runs. */
export async function measureHotPath(
  config: BenchConfig,
  options: BenchOptions,
  context: { runId: string; stripeApiUrl: string; log(line: string): void },
): Promise<HotPathResult> {
  const server = await startBenchServer(config, {
    runId: context.runId,
    stripeApiUrl: context.stripeApiUrl,
    cpuProfDir: options.cpuProfDir,
  });
  const redis = config.store === 'redis' ? await openRedisCpuProbe() : undefined;
  try {
    const clientId = await fundClient(server.url, context.stripeApiUrl);
    const ungatedSpec = { url: `${server.url}${FREE_ROUTE}`, duration: options.duration, connections: options.connections };
    const gatedSpec = { ...ungatedSpec, url: `${server.url}${GATED_ROUTE}`, headers: paymentHeader({ clientId }) };
    const before = await server.child.usage();
    if (options.warmup > 0) {
      await runLoad({ ...ungatedSpec, duration: options.warmup });
      await runLoad({ ...gatedSpec, duration: options.warmup });
    }
    const ungated: RunResult[] = [];
    const gated: RunResult[] = [];
    const ratios: number[] = [];
    for (let rep = 0; rep < options.repetitions; rep++) {
      // ABBA order: a drift over the run weighs on both routes alike.
      const gatedFirst = rep % 2 === 1;
      const first = await measure(server, gatedFirst ? gatedSpec : ungatedSpec, redis);
      const second = await measure(server, gatedFirst ? ungatedSpec : gatedSpec, redis);
      const [u, g] = gatedFirst ? [second, first] : [first, second];
      ungated.push(u);
      gated.push(g);
      ratios.push(u.rps === 0 ? 0 : g.rps / u.rps);
      context.log(
        `  ${config.name} rep ${rep + 1}: ungated ${u.rps} req/s p99 ${u.p99} ms ${u.serverCpuUs} µs CPU/req, ` +
          `gated ${g.rps} req/s p99 ${g.p99} ms ${g.serverCpuUs} µs CPU/req`,
      );
    }
    const after = await server.child.usage();
    const failures = [...ungated, ...gated].reduce((sum, run) => sum + run.non2xx + run.errors, 0);
    return {
      config: config.name,
      framework: config.framework,
      store: config.store,
      ungated: summarize(ungated),
      gated: summarize(gated),
      ratio: round(median(ratios), 3),
      rssBeforeMB: round(before.rss / MB, 1),
      rssAfterMB: round(after.rss / MB, 1),
      failures,
    };
  } finally {
    redis?.close();
    await server.close();
  }
}
