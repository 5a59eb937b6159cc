// The soak section of the bench's markdown: RSS, heap and store size over sustained gated load, and the store's retention.
import { ms, table } from './markdown.ts';
import type { SoakResult } from './soak.ts';


function bytes(value: number | undefined): string {
  return value === undefined ? '–' : `${(value / 1024 / 1024).toFixed(1)} MB`;
}

/** The soak table and what the store keeps. */
export function soakLines(s: SoakResult): string[] {
  const { store } = s;
  const flag = (unbounded: boolean): string => (!s.conclusive ? 'too short to tell' : unbounded ? '**grows without bound**' : 'bounded');
  const retention = store.creditRetentionMs === null ? 'none' : `${store.creditRetentionMs} ms (${(store.creditRetentionMs / 86_400_000).toFixed(0)} days)`;
  return [
    '',
    `### Soak: ${s.seconds} s of gated load on ${s.config} (${s.samples.length} samples; trends fitted over the second half)`,
    '',
    ...table(['requests', 'req/s', 'p99 ms', 'RSS after warm-up → end (max) MB', 'RSS trend MB/min (r²)', 'heap MB start → end, trend MB/min', 'failed requests'], [
      [s.requests, s.rps, ms(s.p99), `${s.rssStartMB} → ${s.rssEndMB} (${s.rssMaxMB})`, `${s.rssTrend.perMinute} (${s.rssTrend.r2}) ${flag(s.rssTrend.unbounded)}`, `${s.heapStartMB} → ${s.heapEndMB}, ${s.heapTrend.perMinute}`, s.failures],
    ]),
    '',
    ...table(['store', 'log records start → end', 'records per paid request (2nd half)', 'records/min (r²)', 'store bytes start → end', 'store size'], [
      [store.kind, `${store.recordsStart} → ${store.recordsEnd}`, store.recordsPerRequest, `${store.trend.perMinute.toFixed(0)} (${store.trend.r2})`, `${bytes(store.bytesStart)} → ${bytes(store.bytesEnd)}`, flag(store.trend.unbounded)],
    ]),
    '',
    `Counted: ${store.counted}. Retention of the ${store.kind} store: ${store.retention}; creditRetentionMs of the running store: ${retention}.`,
  ];
}
