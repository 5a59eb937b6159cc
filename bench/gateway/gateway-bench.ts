// Gateway figures (issues 15 and 38): paid requests through `credit402 gateway` vs the gate-proxy floor, an ungated @fastify/http-proxy, the upstream alone and the in-process plugin.
import type { BenchChild } from '../child-process.ts';
import { measureUnqueued, type UnqueuedComparison } from '../unqueued-latency.ts';
import type { BenchOptions } from '../options.ts';
import { GATED_ROUTE, paymentHeader } from '../payment.ts';
import { writeProfileRequests } from '../profile-requests.ts';
import { pairedCpuDifference, pairedRatio, runRounds, summarize, type Leg, type RouteSummary, type RunResult } from '../rounds.ts';
import { startGatewayServers } from './gateway-servers.ts';

/** The legs of the gateway section, in the order of a round. */
export const GATEWAY_LEGS = ['gateway', 'floor', 'httpProxy', 'upstream', 'plugin'] as const;
/** One leg of the gateway section. */
export type GatewayLeg = (typeof GATEWAY_LEGS)[number] | 'baseline';

/** The ways of serving one paid route, measured in the same interleaved rounds. */
export interface GatewayResult {
  store: 'memory' | 'sqlite';
  /** Paid `GET /api/nodesc` through the gateway; CPU is the gateway process's only (as for every proxy below). */
  gateway: RouteSummary;
  /** The gate-proxy floor: a plain node:http proxy making one Map deduction per paid request. */
  floor: RouteSummary;
  /** The same request through Fastify and @fastify/http-proxy, ungated (nothing deducted). */
  httpProxy: RouteSummary;
  /** The same request straight to the upstream (no gate); CPU is the upstream's. */
  upstream: RouteSummary;
  /** Paid through the reference server on Fastify (the plugin in process, same store); CPU is that server's. */
  plugin: RouteSummary;
  /** The gateway of another checkout (`--gateway-baseline`), when asked for. */
  baseline?: RouteSummary;
  /** Medians over the repetitions of the paired ratios (and CPU differences) of the same round. */
  gatewayVsHttpProxy: { rps: number; p99: number; addedCpuUs: number };
  gatewayVsFloor: { rps: number; p99: number; addedCpuUs: number };
  gatewayVsUpstream: { rps: number; p99: number };
  gatewayVsPlugin: { rps: number; p99: number };
  /** The gateway over the baseline's, when a baseline ran. */
  gatewayVsBaseline?: { rps: number; p99: number; addedCpuUs: number };
  /** The gateway and the gate-proxy floor loaded by one connection each, one request at a time (no queue): the p99 the target judges. */
  unqueued: UnqueuedComparison;
  /** Non-2xx answers and connection errors per leg, warm-up excluded. */
  failures: Partial<Record<GatewayLeg, number>> & Record<(typeof GATEWAY_LEGS)[number], number>;
}

const failuresOf = (runs: RunResult[]): number => runs.reduce((sum, run) => sum + run.non2xx + run.errors, 0);

const versus = (a: RunResult[], b: RunResult[]): { rps: number; p99: number; addedCpuUs: number } => ({
  rps: pairedRatio(a, b, (run) => run.rps),
  p99: pairedRatio(a, b, (run) => run.p99),
  addedCpuUs: pairedCpuDifference(a, b),
});

/** Measures every leg in interleaved rounds, each paid by a client funded by card (the floor funds the gateway's client itself). */
export async function measureGateway(options: BenchOptions, context: { runId: string; stripeApiUrl: string; log(line: string): void }): Promise<GatewayResult> {
  const closers: Array<() => Promise<void>> = [];
  try {
    const servers = await startGatewayServers(options, context, closers);
    const base = { duration: options.duration, connections: options.connections };
    const leg = (name: GatewayLeg, url: string, clientId: string, process: BenchChild<unknown>): Leg => ({
      name,
      load: { ...base, url: `${url}${GATED_ROUTE}`, headers: paymentHeader({ clientId }) },
      processes: [process],
    });
    const { clients } = servers;
    const gatewayLeg = leg('gateway', servers.gateway.ready.url, clients.gateway, servers.gateway);
    const floorLeg = leg('floor', servers.floor.ready.url, clients.gateway, servers.floor);
    const legs = [
      gatewayLeg,
      floorLeg,
      leg('httpProxy', servers.httpProxy.ready.url, clients.gateway, servers.httpProxy),
      leg('upstream', servers.upstream.ready.url, clients.gateway, servers.upstream),
      leg('plugin', servers.plugin.url, clients.plugin, servers.plugin.child),
    ];
    if (servers.baseline !== undefined && clients.baseline !== undefined) legs.splice(1, 0, leg('baseline', servers.baseline.ready.url, clients.baseline, servers.baseline));
    const runs = await runRounds(legs, { repetitions: options.repetitions, warmup: options.warmup, label: 'gateway', log: context.log });
    const of = (name: GatewayLeg): RunResult[] => runs.get(name) ?? [];
    writeProfileRequests(options.cpuProfDir, 'gateway', { paid: of('gateway') });
    if (runs.has('baseline')) writeProfileRequests(options.cpuProfDir, 'gateway-baseline', { paid: runs.get('baseline') });
    writeProfileRequests(options.cpuProfDir, 'gate-proxy-floor', { paid: of('floor') });
    writeProfileRequests(options.cpuProfDir, 'http-proxy', { paid: of('httpProxy') });
    // The upstream serves every proxy's requests too: `paid` is its share of the gateway's load, `direct` its own leg.
    writeProfileRequests(options.cpuProfDir, 'upstream', { paid: of('gateway'), direct: of('upstream') });
    writeProfileRequests(options.cpuProfDir, `plugin-fastify-${options.gatewayStore}`, { paid: of('plugin') });
    const gateway = of('gateway');
    const baseline = runs.get('baseline');
    const unqueued = await measureUnqueued(gatewayLeg, floorLeg, { repetitions: options.repetitions, label: 'gateway', log: context.log });
    const failures = Object.fromEntries([...runs].map(([name, legRuns]) => [name, failuresOf(legRuns)])) as GatewayResult['failures'];
    return {
      store: options.gatewayStore,
      gateway: summarize(gateway),
      floor: summarize(of('floor')),
      httpProxy: summarize(of('httpProxy')),
      upstream: summarize(of('upstream')),
      plugin: summarize(of('plugin')),
      ...(baseline === undefined ? {} : { baseline: summarize(baseline), gatewayVsBaseline: versus(gateway, baseline) }),
      gatewayVsHttpProxy: versus(gateway, of('httpProxy')),
      gatewayVsFloor: versus(gateway, of('floor')),
      gatewayVsUpstream: { rps: pairedRatio(gateway, of('upstream'), (run) => run.rps), p99: pairedRatio(gateway, of('upstream'), (run) => run.p99) },
      gatewayVsPlugin: { rps: pairedRatio(gateway, of('plugin'), (run) => run.rps), p99: pairedRatio(gateway, of('plugin'), (run) => run.p99) },
      unqueued,
      failures,
    };
  } finally {
    // Abandoned requests of the last run finish first; then everything stops, the last started first.
    await new Promise((resolve) => setTimeout(resolve, 250));
    for (const close of closers.reverse()) await close().catch(() => {});
  }
}
