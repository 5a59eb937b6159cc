// One fixed-duration load measurement with autocannon: requests per second and exact latency percentiles.
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { percentile, round } from './stats.ts';

/** What one measurement asks for. */
export interface LoadSpec {
  url: string;
  headers?: Record<string, string>;
  /** Seconds. */
  duration: number;
  connections: number;
}

/** What one measurement found; latencies in milliseconds, of 2xx responses only. */
export interface LoadResult {
  /** 2xx responses per second of wall time. */
  rps: number;
  p50: number;
  p99: number;
  /** 2xx responses. */
  ok: number;
  /** Responses with another status. */
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  seconds: number;
}

/** Runs autocannon against `spec.url` for `spec.duration` seconds; every latency is recorded, not bucketed. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let latencies = new Float64Array(65_536);
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      { url: spec.url, connections: spec.connections, duration: spec.duration, headers: spec.headers ?? {}, timeout: 10 },
      (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode > 299) {
        non2xx++;
        return;
      }
      if (ok === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[ok++] = responseTime;
    });
    instance.on('reqError', () => {
      errors++;
    });
  });
  const seconds = (performance.now() - started) / 1000;
  const recorded = latencies.subarray(0, ok);
  return {
    rps: round(ok / seconds, 0),
    p50: round(percentile(recorded, 50), 3),
    p99: round(percentile(recorded, 99), 3),
    ok,
    non2xx,
    errors,
    seconds: round(seconds, 2),
  };
}
