// The processes of the gateway section: the upstream, the gateway (and a baseline gateway), the gate-proxy floor, @fastify/http-proxy and the plugin's reference server.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchServer, type BenchServer } from '../bench-server.ts';
import { startChild, type BenchChild } from '../child-process.ts';
import { cpuProfFlags } from '../cpu-prof.ts';
import type { BenchOptions } from '../options.ts';
import { fundClient } from '../payment.ts';
import { prepareStore } from '../stores.ts';

/** A bench child serving HTTP at `url`. */
export type UrlChild = BenchChild<{ url: string; pid: number }>;

/** Everything the gateway section loads, each process on its own, and the clients funded on the gated ones. */
export interface GatewayServers {
  upstream: UrlChild;
  gateway: UrlChild;
  /** The gateway of another checkout (`--gateway-baseline`), on a store of its own. */
  baseline?: UrlChild;
  floor: UrlChild;
  httpProxy: UrlChild;
  plugin: BenchServer;
  clients: { gateway: string; baseline?: string; plugin: string };
}

/** Large enough that the floor's balance never runs out during a load run, as a card-funded client's. */
const FLOOR_BALANCE = 9_000_000_000;

/** Starts one gateway child on a fresh store (config file in a temp directory), `referenceDir` the code it runs. */
async function startGatewayChild(options: BenchOptions, context: { runId: string; stripeApiUrl: string }, upstreamUrl: string, label: string, closers: Array<() => Promise<void>>, referenceDir?: string): Promise<UrlChild> {
  const store = await prepareStore(options.gatewayStore, context.runId, label);
  closers.push(() => store.cleanup());
  const dir = mkdtempSync(join(tmpdir(), 'credit402-bench-gateway-'));
  closers.push(async () => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.json');
  writeFileSync(configPath, JSON.stringify({ upstream: upstreamUrl, store: store.config, stripeApi: context.stripeApiUrl, host: '127.0.0.1', port: 0 }));
  const child = await startChild<{ url: string; pid: number }>('bench/gateway/gateway-child.ts', referenceDir === undefined ? [configPath] : [configPath, referenceDir], { nodeFlags: cpuProfFlags(options.cpuProfDir, label) });
  closers.push(() => child.stop());
  return child;
}

/** Starts a child and registers its stop; the others keep starting when one fails (so every started one is stopped). */
async function started<T>(start: Promise<T>, stop: (value: T) => Promise<void>, closers: Array<() => Promise<void>>): Promise<T> {
  const value = await start;
  closers.push(() => stop(value));
  return value;
}

/** Starts every process of the section; `closers` gets what stops each (run them in reverse). */
export async function startGatewayServers(options: BenchOptions, context: { runId: string; stripeApiUrl: string }, closers: Array<() => Promise<void>>): Promise<GatewayServers> {
  const upstream = await started(startChild<{ url: string; pid: number }>('bench/gateway/upstream-child.ts', [], { nodeFlags: cpuProfFlags(options.cpuProfDir, 'upstream') }), (child) => child.stop(), closers);
  const url = upstream.ready.url;
  const starts = await Promise.allSettled([
    startGatewayChild(options, context, url, 'gateway', closers),
    started(startChild<{ url: string; pid: number }>('bench/gateway/gate-proxy-floor-child.ts', [url], { nodeFlags: cpuProfFlags(options.cpuProfDir, 'gate-proxy-floor') }), (child) => child.stop(), closers),
    options.gatewayBaseline === undefined ? Promise.resolve(undefined) : startGatewayChild(options, context, url, 'gateway-baseline', closers, options.gatewayBaseline),
    started(startChild<{ url: string; pid: number }>('bench/gateway/http-proxy-child.ts', [url], { nodeFlags: cpuProfFlags(options.cpuProfDir, 'http-proxy') }), (child) => child.stop(), closers),
    started(startBenchServer({ name: `fastify-${options.gatewayStore}`, framework: 'fastify', store: options.gatewayStore }, { ...context, label: `plugin-fastify-${options.gatewayStore}`, cpuProfDir: options.cpuProfDir }), (server) => server.close(), closers),
  ] as const);
  for (const start of starts) if (start.status === 'rejected') throw start.reason;
  const [gateway, floor, baseline, httpProxy, plugin] = starts.map((start) => (start as PromiseFulfilledResult<unknown>).value) as [UrlChild, UrlChild, UrlChild | undefined, UrlChild, BenchServer];
  const [gatewayClient, pluginClient, baselineClient] = await Promise.all([
    fundClient(gateway.ready.url, context.stripeApiUrl),
    fundClient(plugin.url, context.stripeApiUrl),
    baseline === undefined ? undefined : fundClient(baseline.ready.url, context.stripeApiUrl),
  ]);
  // The floor funds the gateway's client in its own Map: the same `payment` header is sent to both.
  await floor.request('fund', { clientId: gatewayClient, balance: FLOOR_BALANCE });
  return {
    upstream,
    gateway,
    floor,
    httpProxy,
    plugin,
    ...(baseline === undefined ? {} : { baseline }),
    clients: { gateway: gatewayClient, plugin: pluginClient, ...(baselineClient === undefined ? {} : { baseline: baselineClient }) },
  };
}
