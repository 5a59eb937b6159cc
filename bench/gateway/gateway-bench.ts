// Gateway figures (issue 15): paid requests through `credit402 gateway` vs the upstream alone vs the in-process Fastify plugin.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchServer, type BenchServer } from '../bench-server.ts';
import { startChild, type BenchChild } from '../child-process.ts';
import { cpuProfFlags } from '../cpu-prof.ts';
import type { BenchOptions } from '../options.ts';
import { fundClient, GATED_ROUTE, paymentHeader } from '../payment.ts';
import { writeProfileRequests } from '../profile-requests.ts';
import { pairedRatio, runRounds, summarize, type Leg, type RouteSummary, type RunResult } from '../rounds.ts';
import { prepareStore, type PreparedStore } from '../stores.ts';

/** The three ways of serving one paid route, measured in the same rounds. */
export interface GatewayResult {
  store: 'memory' | 'sqlite';
  /** Paid `GET /api/nodesc` through the gateway; CPU is the gateway process's only. */
  gateway: RouteSummary;
  /** The same request straight to the upstream (no gate); CPU is the upstream's. */
  upstream: RouteSummary;
  /** Paid through the reference server on Fastify (the plugin in process, same store); CPU is that server's. */
  plugin: RouteSummary;
  /** Medians over the repetitions of the paired ratios. */
  gatewayVsUpstream: { rps: number; p99: number };
  gatewayVsPlugin: { rps: number; p99: number };
  /** Non-2xx answers and connection errors per leg, warm-up excluded. */
  failures: { gateway: number; upstream: number; plugin: number };
}

type Child = BenchChild<{ url: string; pid: number }>;

const failuresOf = (runs: RunResult[]): number => runs.reduce((sum, run) => sum + run.non2xx + run.errors, 0);

/** Starts the upstream, then the gateway (config file in a temp directory) and the plugin's reference server. */
async function startAll(options: BenchOptions, runId: string, stripeApiUrl: string, closers: Array<() => Promise<void>>): Promise<{ upstream: Child; gateway: Child; plugin: BenchServer }> {
  const upstream = await startChild<{ url: string; pid: number }>('bench/gateway/upstream-child.ts', [], { nodeFlags: cpuProfFlags(options.cpuProfDir, 'upstream') });
  closers.push(() => upstream.stop());
  const store: PreparedStore = await prepareStore(options.gatewayStore, runId, 'gateway');
  closers.push(() => store.cleanup());
  const dir = mkdtempSync(join(tmpdir(), 'credit402-bench-gateway-'));
  closers.push(async () => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.json');
  writeFileSync(configPath, JSON.stringify({ upstream: upstream.ready.url, store: store.config, stripeApi: stripeApiUrl, host: '127.0.0.1', port: 0 }));
  const [gateway, plugin] = await Promise.allSettled([
    startChild<{ url: string; pid: number }>('bench/gateway/gateway-child.ts', [configPath], { nodeFlags: cpuProfFlags(options.cpuProfDir, 'gateway') }),
    startBenchServer({ name: `fastify-${options.gatewayStore}`, framework: 'fastify', store: options.gatewayStore }, { runId, stripeApiUrl, label: `plugin-fastify-${options.gatewayStore}`, cpuProfDir: options.cpuProfDir }),
  ]);
  if (gateway.status === 'fulfilled') closers.push(() => gateway.value.stop());
  if (plugin.status === 'fulfilled') closers.push(() => plugin.value.close());
  if (gateway.status === 'rejected') throw gateway.reason;
  if (plugin.status === 'rejected') throw plugin.reason;
  return { upstream, gateway: gateway.value, plugin: plugin.value };
}

/** Measures the gateway, its upstream and the plugin in interleaved rounds, each paid by a client funded by card. */
export async function measureGateway(options: BenchOptions, context: { runId: string; stripeApiUrl: string; log(line: string): void }): Promise<GatewayResult> {
  const closers: Array<() => Promise<void>> = [];
  try {
    const { upstream, gateway, plugin } = await startAll(options, context.runId, context.stripeApiUrl, closers);
    const [gatewayClient, pluginClient] = await Promise.all([fundClient(gateway.ready.url, context.stripeApiUrl), fundClient(plugin.url, context.stripeApiUrl)]);
    const base = { duration: options.duration, connections: options.connections };
    const leg = (name: string, url: string, clientId: string, process: BenchChild<unknown>): Leg => ({
      name,
      load: { ...base, url: `${url}${GATED_ROUTE}`, headers: paymentHeader({ clientId }) },
      processes: [process],
    });
    const legs = [
      leg('gateway', gateway.ready.url, gatewayClient, gateway),
      leg('upstream', upstream.ready.url, gatewayClient, upstream),
      leg('plugin', plugin.url, pluginClient, plugin.child),
    ];
    const runs = await runRounds(legs, { repetitions: options.repetitions, warmup: options.warmup, label: 'gateway', log: context.log });
    writeProfileRequests(options.cpuProfDir, 'gateway', { paid: runs.get('gateway') });
    // The upstream serves the gateway's requests too: `paid` is its share of the gateway's load, `direct` its own leg.
    writeProfileRequests(options.cpuProfDir, 'upstream', { paid: runs.get('gateway'), direct: runs.get('upstream') });
    writeProfileRequests(options.cpuProfDir, `plugin-fastify-${options.gatewayStore}`, { paid: runs.get('plugin') });
    const [g, u, p] = [runs.get('gateway') ?? [], runs.get('upstream') ?? [], runs.get('plugin') ?? []];
    return {
      store: options.gatewayStore,
      gateway: summarize(g),
      upstream: summarize(u),
      plugin: summarize(p),
      gatewayVsUpstream: { rps: pairedRatio(g, u, (run) => run.rps), p99: pairedRatio(g, u, (run) => run.p99) },
      gatewayVsPlugin: { rps: pairedRatio(g, p, (run) => run.rps), p99: pairedRatio(g, p, (run) => run.p99) },
      failures: { gateway: failuresOf(g), upstream: failuresOf(u), plugin: failuresOf(p) },
    };
  } finally {
    // Abandoned requests of the last run finish first; then everything stops, the last started first.
    await new Promise((resolve) => setTimeout(resolve, 250));
    for (const close of closers.reverse()) await close().catch(() => {});
  }
}
