// `npm run bench`: what the gate costs per request and how fast the kit runs; prints markdown, writes reports/bench-*.json.
import { performance } from 'node:perf_hooks';
import { startBenchServer } from './bench-server.ts';
import { startChild, type BenchChild } from './child-process.ts';
import { timeConformance, type ConformanceResult } from './conformance.ts';
import { measureFirstPayments, type FirstPaymentResult } from './first-payment.ts';
import { measureGateway, type GatewayResult } from './gateway/gateway-bench.ts';
import { measureHotPath, type HotPathResult } from './hot-path.ts';
import { BenchUsageError, parseBenchArgs, USAGE, type BenchOptions } from './options.ts';
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

  // Each external store (Redis, PostgreSQL) is checked once; a configuration on one that does not answer is skipped.
  const kinds = [...new Set([...options.configs, options.soakConfig].map((config) => config.store))];
  const down = new Map(await Promise.all(kinds.map(async (kind) => [kind, await storeUnavailable(kind)] as const)));
  const emulator: Emulator = await startChild('bench/emulator-child.ts', []);
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
    if (options.gateway) {
      log(`gateway: through the gateway vs the upstream vs the plugin (${options.gatewayStore})`);
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
    ...(conformance === undefined ? {} : { conformance }),
    targets: evaluateTargets(hotPath, extra.soak, conformance, options.soak),
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
