// Sustained gated load on one server while its RSS, heap and store size are sampled: does anything grow without bound?
import type { BenchChild } from './child-process.ts';
import { climbs, secondHalfTrend, type Trend } from './growth.ts';
import { runLoad } from './load.ts';
import { RETENTION } from './retention.ts';
import { round } from './stats.ts';
import type { StoreSizeProbe } from './store-size.ts';
import type { StoreKind } from './options.ts';

/** One sample, `t` seconds after the start of the measured load. */
interface SoakSample {
  t: number;
  rssMB: number;
  heapMB: number;
  records: number;
  bytes?: number;
}

/** A series' second-half trend, per minute, and whether it climbs steadily (always false in a soak too short to tell). */
export interface SoakTrend {
  perMinute: number;
  r2: number;
  unbounded: boolean;
}

/** Below this many seconds a soak is a smoke check: a young process still grows its heap, so nothing is flagged. */
export const CONCLUSIVE_SOAK_S = 20;

/** RSS, heap and store size over a soak run; growth is the last sample minus the one after warm-up. */
export interface SoakResult {
  config: string;
  seconds: number;
  /** Whether the soak was long enough (≥ 20 s) for its growth flags to mean anything. */
  conclusive: boolean;
  requests: number;
  rps: number;
  p99: number;
  rssStartMB: number;
  rssEndMB: number;
  rssMaxMB: number;
  growthMB: number;
  heapStartMB: number;
  heapEndMB: number;
  /** RSS and heap trend over the second half, MB per minute. */
  rssTrend: SoakTrend;
  heapTrend: SoakTrend;
  store: {
    kind: StoreKind;
    counted: string;
    recordsStart: number;
    recordsEnd: number;
    bytesStart?: number;
    bytesEnd?: number;
    /** Records per minute over the second half, and per paid request (1: every request leaves a record). */
    trend: SoakTrend;
    recordsPerRequest: number;
    /** The store's retention of the log (reference/stores/), and the running store's creditRetentionMs (null: none). */
    retention: string;
    creditRetentionMs: number | null;
  };
  samples: SoakSample[];
  failures: number;
}

/** What a soak runs on. */
export interface SoakTarget {
  config: string;
  store: StoreKind;
  child: BenchChild<unknown>;
  probe: StoreSizeProbe;
  creditRetentionMs: number | null;
  /** The log retention the soak's server was started with (SQLite and Postgres), in seconds; undefined: the store's default. */
  logRetentionSeconds?: number;
}

const MB = 1024 * 1024;
/** RSS or heap climbing faster than this over the second half, steadily, is flagged (a leak of ~1 byte per request at 20k req/s). */
const MEMORY_SLOPE_MB_PER_MIN = 1;
/** A store gaining this many log records per paid request over the second half grows with traffic. */
const RECORDS_PER_REQUEST = 0.5;

function trend(points: Array<[number, number]>, minPerMinute: number, conclusive: boolean): { fit: Trend; out: SoakTrend } {
  const fit = secondHalfTrend(points);
  return { fit, out: { perMinute: round(fit.slopePerSecond * 60, 2), r2: round(fit.r2, 2), unbounded: conclusive && climbs(fit, minPerMinute / 60) } };
}

async function sample(target: SoakTarget, began: number): Promise<SoakSample> {
  const [usage, size] = await Promise.all([target.child.usage(), target.probe.read()]);
  return {
    t: round((Date.now() - began) / 1000, 2),
    rssMB: round(usage.rss / MB, 1),
    heapMB: round(usage.heapUsed / MB, 1),
    records: size.records,
    ...(size.bytes === undefined ? {} : { bytes: size.bytes }),
  };
}

/** Warms up for `warmup` s, then loads `spec.url` for `seconds`, sampling about 30 times (every 0.25 s to 2 s). */
export async function soak(
  target: SoakTarget,
  spec: { url: string; headers: Record<string, string>; connections: number },
  seconds: number,
  warmup: number,
): Promise<SoakResult> {
  if (warmup > 0) await runLoad({ ...spec, duration: warmup });
  const began = Date.now();
  const samples: SoakSample[] = [await sample(target, began)];
  const every = Math.min(2_000, Math.max(250, (seconds * 1000) / 30));
  const timer = setInterval(() => void sample(target, began).then((one) => samples.push(one), () => {}), every);
  const load = await runLoad({ ...spec, duration: seconds }).finally(() => clearInterval(timer));
  samples.push(await sample(target, began));
  samples.sort((a, b) => a.t - b.t);
  const first = samples[0] as SoakSample;
  const last = samples[samples.length - 1] as SoakSample;
  const conclusive = seconds >= CONCLUSIVE_SOAK_S;
  const records = trend(samples.map((s) => [s.t, s.records]), 0, conclusive);
  const recordsPerRequest = load.rps === 0 ? 0 : round(records.fit.slopePerSecond / load.rps, 3);
  return {
    config: target.config,
    seconds,
    conclusive,
    requests: load.ok,
    rps: load.rps,
    p99: load.p99,
    rssStartMB: first.rssMB,
    rssEndMB: last.rssMB,
    rssMaxMB: Math.max(...samples.map((s) => s.rssMB)),
    growthMB: round(last.rssMB - first.rssMB, 1),
    heapStartMB: first.heapMB,
    heapEndMB: last.heapMB,
    rssTrend: trend(samples.map((s) => [s.t, s.rssMB]), MEMORY_SLOPE_MB_PER_MIN, conclusive).out,
    heapTrend: trend(samples.map((s) => [s.t, s.heapMB]), MEMORY_SLOPE_MB_PER_MIN, conclusive).out,
    store: {
      kind: target.store,
      counted: target.probe.describe,
      recordsStart: first.records,
      recordsEnd: last.records,
      ...(first.bytes === undefined ? {} : { bytesStart: first.bytes }),
      ...(last.bytes === undefined ? {} : { bytesEnd: last.bytes }),
      trend: { ...records.out, unbounded: conclusive && records.fit.samples >= 3 && recordsPerRequest >= RECORDS_PER_REQUEST },
      recordsPerRequest,
      retention: `${RETENTION[target.store].statement}${(target.store === 'sqlite' || target.store === 'postgres') && target.logRetentionSeconds !== undefined ? `; this soak runs it with transactionTtlSeconds ${target.logRetentionSeconds}, so a bounded log stops growing` : ''}`,
      creditRetentionMs: target.creditRetentionMs,
    },
    samples,
    failures: load.non2xx + load.errors,
  };
}
