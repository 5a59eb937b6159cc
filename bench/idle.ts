// Idle CPU per store: the reference server of each store started and left alone, its CPU over a window as % of one core.
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchServer, type BenchServer } from './bench-server.ts';
import type { StoreKind } from './options.ts';
import { round } from './stats.ts';

/** An idle server may spend this much of one core, at most (background timers, keep-alives, the store's own). */
export const IDLE_CPU_TARGET_PERCENT = 1;
/** Left alone before the window opens: start-up work (lazy compilation, the store's first queries) is not idle work. */
const SETTLE_MS = 3000;

/** What one idle server spent. */
export interface IdleResult {
  store: StoreKind;
  /** The configuration started: `fastify-<store>`, `fastify-memory-embedded` with the in-process emulator. */
  config: string;
  seconds: number;
  /** User + system CPU of the server process over the window, µs. */
  cpuUs: number;
  /** The same as % of one core. */
  percent: number;
}

/** CPU over a window as % of one core (µs of CPU over µs of wall time). */
export function idlePercent(cpuUs: number, seconds: number): number {
  return seconds <= 0 ? Number.NaN : round((100 * cpuUs) / (seconds * 1e6), 3);
}

/** One idle server: its store, and the in-process emulator (`stripeApi: "embedded"`, its scheduled reconciliation on) or the bench's. */
interface IdleServer {
  config: string;
  store: StoreKind;
  embedded: boolean;
}

/** The idle servers of `stores`: each on the bench's emulator, and memory once more with the embedded emulator. */
export function idleServers(stores: readonly StoreKind[]): IdleServer[] {
  const servers = stores.map((store) => ({ config: `fastify-${store}`, store, embedded: false }));
  return stores.includes('memory') ? [...servers, { config: 'fastify-memory-embedded', store: 'memory', embedded: true }] : servers;
}

/**
 * Starts the reference server (Fastify) on each store in `stores` at once (and on memory with the embedded emulator),
 * lets them settle, then reads each one's CPU over `seconds` with no request made; stops them all. A server that does
 * not start rejects the whole measurement. The window may hold V8's one memory-reducing GC after start-up.
 */
export async function measureIdle(
  stores: readonly StoreKind[],
  seconds: number,
  context: { runId: string; stripeApiUrl: string },
): Promise<IdleResult[]> {
  const wanted = idleServers(stores);
  const starts = await Promise.allSettled(
    wanted.map((one) => startBenchServer({ name: one.config, framework: 'fastify', store: one.store }, {
      ...context,
      label: `idle-${one.config}`,
      ...(one.embedded ? { stripeApiUrl: 'embedded' } : {}),
    })),
  );
  const servers = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
  try {
    const failed = starts.find((start): start is PromiseRejectedResult => start.status === 'rejected');
    if (failed) throw failed.reason;
    await sleep(SETTLE_MS);
    const before = await Promise.all(servers.map((server) => server.child.usage()));
    const began = performance.now();
    await sleep(seconds * 1000);
    const after = await Promise.all(servers.map((server) => server.child.usage()));
    const elapsed = (performance.now() - began) / 1000;
    return wanted.map((one, index) => {
      const cpuUs = (after[index]?.cpuMicros ?? 0) - (before[index]?.cpuMicros ?? 0);
      return { store: one.store, config: one.config, seconds: round(elapsed, 1), cpuUs, percent: idlePercent(cpuUs, elapsed) };
    });
  } finally {
    await Promise.all(servers.map((server: BenchServer) => server.close()));
  }
}
