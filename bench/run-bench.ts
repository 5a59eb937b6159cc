// `npm run bench`: what the gate costs per request and how fast the kit runs; prints markdown, writes reports/bench-*.json.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchServer, type BenchServer } from './bench-server.ts';
import { startChild, type BenchChild } from './child-process.ts';
import { timeConformance, type ConformanceResult } from './conformance.ts';
import { measureFirstPayments, type FirstPaymentResult } from './first-payment.ts';
import { measureFreeAppsInChild, type FreeAppCost } from './express-free-micro.ts';
import { measureGateway, type GatewayResult } from './gateway/gateway-bench.ts';
import { measureHotPath, type HotPathResult } from './hot-path.ts';
import { measureIdle, type IdleResult } from './idle.ts';
import { measurePaidStagesInChild, type PaidStages } from './paid-stages.ts';
import { BenchUsageError, parseBenchArgs, STORES, USAGE, type BenchOptions } from './options.ts';
import { fundClient, GATED_ROUTE, paymentHeader } from './payment.ts';
import { defaultReportPath, machineInfo, writeReport, type BenchReport } from './report.ts';
import { soak, type SoakResult } from './soak.ts';
import { openStoreSizeProbe } from './store-size.ts';
import { storeUnavailable } from './stores.ts';
import { renderTable } from './table.ts';
import { evaluateTargets } from './targets.ts';

/** The soak's log retention on SQLite and Postgres (90 days by default): short, so that the soak sees the store stop growing. */
const SOAK_LOG_RETENTION_S = 5;

type Emulator = BenchChild<{ url: string; controlUrl: string }>;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

async function paymentsAndSoak(
  options: BenchOptions,
  runId: string,
  emulator: Emulator,
): Promise<{ firstPayment?: FirstPaymentResult; soak?: SoakResult }> {
  const config = options.soakConfig;
  const server = await startBenchServer(config, {
    runId,
    stripeApiUrl: emulator.ready.url,
    label: `${config.name}-soak`,
    cpuProfDir: options.cpuProfDir,
    transactionTtlSeconds: SOAK_LOG_RETENTION_S,
  });
  try {
    const out: { firstPayment?: FirstPaymentResult; soak?: SoakResult } = {};
    if (options.payments > 0) {
      log(`first payments: ${options.payments} on ${config.name}, concurrency ${options.paymentConcurrency}`);
      out.firstPayment = await measureFirstPayments(
        config.name,
        { serverUrl: server.url, server: server.child, emulator },
        options.payments,
        options.paymentConcurrency,
      );
    }
    if (options.soak > 0) {
      log(`soak: ${options.soak} s of gated load on ${config.name}`);
      const clientId = await fundClient(server.url, emulator.ready.url);
      const spec = { url: `${server.url}${GATED_ROUTE}`, headers: paymentHeader({ clientId }), connections: options.connections };
      const probe = await openStoreSizeProbe(server.store, server.child, clientId);
      try {
        const target = { config: config.name, store: config.store, child: server.child, probe, creditRetentionMs: server.child.ready.creditRetentionMs, logRetentionSeconds: SOAK_LOG_RETENTION_S };
        out.soak = await soak(target, spec, options.soak, options.warmup);
      } finally {
        await probe.close();
      }
    }
    return out;
  } finally {
    await server.close();
  }
}

/** How long the idle servers of --idle-servers are left alone after they started, before the hot path. */
const BYSTANDER_SETTLE_MS = 5000;

/** Starts `count` reference servers (Fastify, memory) that serve nothing during the run. */
async function startBystanders(count: number, context: { runId: string; stripeApiUrl: string }): Promise<BenchServer[]> {
  if (count === 0) return [];
  log(`idle servers: ${count} reference servers (fastify-memory) up during the hot path`);
  const starts = await Promise.allSettled(
    Array.from({ length: count }, (_, index) => startBenchServer({ name: 'fastify-memory', framework: 'fastify', store: 'memory' }, { ...context, label: `bystander-${index + 1}` })),
  );
  const started = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
  const failed = starts.find((start): start is PromiseRejectedResult => start.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((server) => server.close()));
    throw failed.reason;
  }
  // Their start-up work (compilation, the first garbage collections) is over before the rounds begin.
  await sleep(BYSTANDER_SETTLE_MS);
  return started;
}

async function run(options: BenchOptions): Promise<{ report: BenchReport; failed: boolean }> {
  const startedAt = new Date().toISOString();
  const began = performance.now();
  const runId = `${startedAt.replace(/[^0-9]/g, '')}-${process.pid}`;
  const machine = machineInfo();
  const hotPath: HotPathResult[] = [];
  const skipped: Array<{ config: string; reason: string }> = [];
  let failed = false;
  let extra: { firstPayment?: FirstPaymentResult; soak?: SoakResult } = {};
  let conformance: ConformanceResult | undefined;
  let gateway: { gateway?: GatewayResult; gatewaySkipped?: string } = {};
  let idle: IdleResult[] | undefined;
  let expressFree: FreeAppCost[] | undefined;
  let paidStages: PaidStages | undefined;

  // Each external store (Redis, PostgreSQL) is checked once; a configuration on one that does not answer is skipped.
  const kinds = [...new Set([...options.configs, options.soakConfig].map((config) => config.store).concat(options.idle > 0 ? STORES : []))];
  const down = new Map(await Promise.all(kinds.map(async (kind) => [kind, await storeUnavailable(kind)] as const)));
  const emulator: Emulator = await startChild('bench/emulator-child.ts', []);
  try {
    if (options.idle > 0) {
      const stores = STORES.filter((kind) => !down.get(kind));
      for (const kind of STORES) if (down.get(kind)) skipped.push({ config: `idle-fastify-${kind}`, reason: down.get(kind) as string });
      log(`idle: the reference server on ${stores.join(', ')}, ${options.idle} s without requests`);
      idle = await measureIdle(stores, options.idle, { runId, stripeApiUrl: emulator.ready.url }).catch((error: unknown) => {
        failed = true;
        skipped.push({ config: 'idle', reason: `failed: ${error instanceof Error ? error.message : String(error)}` });
        return undefined;
      });
    }
    // Bystanders: reference servers that only sit there, to show whether others running changes the hot path's figures.
    const bystanders = await startBystanders(options.idleServers, { runId, stripeApiUrl: emulator.ready.url });
    try {
      for (const config of options.configs) {
        const reason = down.get(config.store);
        if (reason) {
          skipped.push({ config: config.name, reason });
          continue;
        }
        log(`hot path: ${config.name}`);
        try {
          hotPath.push(await measureHotPath(config, options, { runId, stripeApiUrl: emulator.ready.url, log }));
        } catch (error) {
          failed = true;
          skipped.push({ config: config.name, reason: `failed: ${error instanceof Error ? error.message : String(error)}` });
        }
      }
    } finally {
      await Promise.all(bystanders.map((server) => server.close()));
    }
    if (options.expressFree > 0) {
      log(`free requests through Express, in process: ${options.expressFree} × ${options.expressFreeRounds} rounds`);
      expressFree = await measureFreeAppsInChild(options.expressFree, options.expressFreeRounds);
    }
    if (options.stages > 0) {
      log(`paid request stage by stage, in process: ${options.stages} × ${options.stagesRounds} rounds`);
      paidStages = await measurePaidStagesInChild(options.stages, options.stagesRounds);
    }
    if (options.gateway) {
      log(`gateway: through the gateway vs its floor, @fastify/http-proxy, the upstream and the plugin (${options.gatewayStore})`);
      gateway = await measureGateway(options, { runId, stripeApiUrl: emulator.ready.url, log }).then(
        (result) => ({ gateway: result }),
        (error: unknown) => {
          failed = true;
          return { gatewaySkipped: `failed: ${error instanceof Error ? error.message : String(error)}` };
        },
      );
    }
    if ((options.payments > 0 || options.soak > 0) && !down.get(options.soakConfig.store)) {
      extra = await paymentsAndSoak(options, runId, emulator);
    }
  } finally {
    await emulator.stop();
  }
  if (options.conformance) {
    log('conformance: timing a full run');
    conformance = await timeConformance();
  }

  const report: BenchReport = {
    startedAt,
    wallSeconds: Math.round((performance.now() - began) / 100) / 10,
    machine,
    options: { ...options, configs: options.configs.map((config) => config.name), soakConfig: options.soakConfig.name },
    hotPath,
    skipped,
    ...extra,
    ...gateway,
    ...(expressFree === undefined ? {} : { expressFree }),
    ...(idle === undefined ? {} : { idle }),
    ...(paidStages === undefined ? {} : { paidStages }),
    ...(conformance === undefined ? {} : { conformance }),
    targets: evaluateTargets(hotPath, extra.soak, conformance, options.soak, { expressFree, idle, gateway: gateway.gateway }),
  };
  return { report, failed };
}

async function main(): Promise<number> {
  const options = parseBenchArgs(process.argv.slice(2));
  if (options === 'help') {
    console.log(USAGE);
    return 0;
  }
  const { report, failed } = await run(options);
  const path = writeReport(report, options.out ?? defaultReportPath(report.startedAt));
  console.log(renderTable(report));
  console.log(`\nJSON report: ${path}`);
  return failed ? 1 : 0;
}

// Children leave when this process does; an interrupt still runs the exit hooks (conformance group kill).
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof BenchUsageError ? `bench: ${error.message}\n\n${USAGE}` : error);
    process.exitCode = 2;
  },
);
